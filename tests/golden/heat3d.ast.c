---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 1; c0 <= N; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= N; c1 += 1)
      // parallel
      for (int c2 = 1; c2 <= N; c2 += 1)
        S0_0(c0, c1, c2);
  for (int c0 = 0; c0 <= T; c0 += 1)
    #pragma omp parallel for
    for (int c1 = 0; c1 <= N + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= N + 1; c2 += 1)
        // parallel
        for (int c3 = 0; c3 <= N + 1; c3 += 1)
          S1(c0, c1, c2, c3);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= N + 1; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= N + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= N + 1; c2 += 1)
        S2_0(c0, c1, c2);
}
