---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 255; c0 += 1)
    I0(c0);
  for (int c0 = 0; c0 < R; c0 += 1)
    for (int c1 = 0; c1 < C; c1 += 1)
      U0_0(c0, c1);
}
