---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 2; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S0_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 2; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 2; c2 <= C + 1; c2 += 1)
        S1_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 2; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 2; c2 <= C + 1; c2 += 1)
        S2_0(c0, c1, c2);
}
