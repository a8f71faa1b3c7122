---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 8; c0 <= R + 17; c0 += 1)
    // parallel
    for (int c1 = 12; c1 <= C + 21; c1 += 1)
      S0_0(c0, c1);
  #pragma omp parallel for
  for (int c1 = 4; c1 <= R / 2 + 8; c1 += 1)
    // parallel
    for (int c2 = 6; c2 <= C / 2 + 10; c2 += 1)
      S1_0(0, c1, c2);
  #pragma omp parallel for
  for (int c1 = 4; c1 <= R / 2 + 8; c1 += 1)
    // parallel
    for (int c2 = 6; c2 <= C / 2 + 10; c2 += 1)
      S1_1(1, c1, c2);
  #pragma omp parallel for
  for (int c1 = 4; c1 <= R / 2 + 8; c1 += 1)
    // parallel
    for (int c2 = 6; c2 <= C / 2 + 10; c2 += 1)
      S1_2(2, c1, c2);
  #pragma omp parallel for
  for (int c1 = 4; c1 <= R / 2 + 8; c1 += 1)
    // parallel
    for (int c2 = 6; c2 <= C / 2 + 10; c2 += 1)
      S1_3(3, c1, c2);
  #pragma omp parallel for
  for (int c0 = 4; c0 <= R / 2 + 8; c0 += 1)
    // parallel
    for (int c1 = 6; c1 <= C / 2 + 10; c1 += 1)
      S2_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 4; c0 <= R / 2 + 8; c0 += 1)
    // parallel
    for (int c1 = 6; c1 <= C / 2 + 10; c1 += 1)
      S3_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 4; c0 <= R / 2 + 8; c0 += 1)
    // parallel
    for (int c1 = 6; c1 <= C / 2 + 10; c1 += 1)
      S4_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 4; c0 <= R / 2 + 8; c0 += 1)
    // parallel
    for (int c1 = 6; c1 <= C / 2 + 10; c1 += 1)
      S5_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 5; c0 <= R / 2 + 7; c0 += 1)
    // parallel
    for (int c1 = 7; c1 <= C / 2 + 9; c1 += 1)
      S6_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 5; c0 <= R / 2 + 7; c0 += 1)
    // parallel
    for (int c1 = 7; c1 <= C / 2 + 9; c1 += 1)
      S7_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S8_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S9_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S10_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S11_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S12_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 8; c1 <= C / 2 + 8; c1 += 1)
      S13_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S14_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S15_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S16_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S17_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S18_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 6; c0 <= R / 2 + 6; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S19_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 12; c0 <= R + 11; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S20_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 12; c0 <= R + 11; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S21_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 12; c0 <= R + 11; c0 += 1)
    // parallel
    for (int c1 = 16; c1 <= C + 15; c1 += 1)
      S22_0(c0, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S23_0(0, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S23_1(1, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S23_2(2, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S24_0(0, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S24_1(1, c1);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= 3; c1 += 1)
    S24_2(2, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= 3; c1 += 1)
      S25_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 12; c1 <= R + 11; c1 += 1)
      // parallel
      for (int c2 = 16; c2 <= C + 15; c2 += 1)
        S26_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = -32768; c0 <= 32767; c0 += 1)
    S27_0(c0);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 12; c1 <= R + 11; c1 += 1)
      // parallel
      for (int c2 = 16; c2 <= C + 15; c2 += 1)
        S28_0(c0, c1, c2);
}
