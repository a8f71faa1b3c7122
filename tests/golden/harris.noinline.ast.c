---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 1; c0 <= R; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= C; c1 += 1)
      S0_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 1; c0 <= R; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= C; c1 += 1)
      S1_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 1; c0 <= R; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= C; c1 += 1)
      S2_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 1; c0 <= R; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= C; c1 += 1)
      S3_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 1; c0 <= R; c0 += 1)
    // parallel
    for (int c1 = 1; c1 <= C; c1 += 1)
      S4_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S5_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S6_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S7_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S8_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S9_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 2; c0 < R; c0 += 1)
    // parallel
    for (int c1 = 2; c1 < C; c1 += 1)
      S10_0(c0, c1);
}
