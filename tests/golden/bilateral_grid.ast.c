---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 1; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= (R - 1) / 8 + 6; c1 += 1)
      // parallel
      for (int c2 = 1; c2 <= (C - 1) / 8 + 6; c2 += 1)
        // parallel
        for (int c3 = 0; c3 <= 14; c3 += 1)
          I0(c0, c1, c2, c3);
  #pragma omp parallel for
  for (int c0 = 1; c0 <= (R - 1) / 8 + 6; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= (C - 1) / 8 + 6; c1 += 1)
      for (int c2 = 0; c2 <= 8; c2 += 1)
        for (int c3 = 0; c3 <= 8; c3 += 1) {
          U0_0(c0, c1, c2, c3);
          U0_1(c0, c1, c2, c3);
        }
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 1; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= (R - 1) / 8 + 6; c1 += 1)
      // parallel
      for (int c2 = 1; c2 <= (C - 1) / 8 + 6; c2 += 1)
        // parallel
        for (int c3 = 2; c3 <= 12; c3 += 1)
          S1_0(c0, c1, c2, c3);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 1; c0 += 1)
    // parallel
    for (int c1 = 3; c1 <= (R - 1) / 8 + 4; c1 += 1)
      // parallel
      for (int c2 = 1; c2 <= (C - 1) / 8 + 6; c2 += 1)
        // parallel
        for (int c3 = 2; c3 <= 12; c3 += 1)
          S2_0(c0, c1, c2, c3);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 1; c0 += 1)
    // parallel
    for (int c1 = 3; c1 <= (R - 1) / 8 + 4; c1 += 1)
      // parallel
      for (int c2 = 3; c2 <= (C - 1) / 8 + 4; c2 += 1)
        // parallel
        for (int c3 = 2; c3 <= 12; c3 += 1)
          S3_0(c0, c1, c2, c3);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 1; c0 += 1)
    // parallel
    for (int c1 = 24; c1 <= R + 23; c1 += 1)
      // parallel
      for (int c2 = 24; c2 <= C + 23; c2 += 1)
        S4_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 24; c0 <= R + 23; c0 += 1)
    // parallel
    for (int c1 = 24; c1 <= C + 23; c1 += 1)
      S5_0(c0, c1);
}
