---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R + 1; c0 += 1)
    // parallel
    for (int c1 = 0; c1 < C; c1 += 1)
      S0_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 0; c1 < C; c1 += 1)
      S1_0(c0, c1);
}
