---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 1; c2 += 1)
        S0_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c1 = 0; c1 <= R + 1; c1 += 1)
    // parallel
    for (int c2 = 0; c2 <= C + 1; c2 += 1)
      S0_1(3, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 1; c2 += 1)
        S1(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 1; c2 += 1)
        S2(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 1; c2 += 1)
        S3(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 1; c2 += 1)
        S4(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 1; c2 += 1)
        S5(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 1; c2 += 1)
        S6(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 1; c2 += 1)
        S7(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 1; c2 += 1)
        S8(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 1; c2 += 1)
        S9(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 1; c2 += 1)
        S10(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 1; c2 += 1)
        S11(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 1; c2 += 1)
        S12(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 1; c2 += 1)
        S13(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 1; c2 += 1)
        S14(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 256 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 1; c2 += 1)
        S15(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 256 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 256 + 1; c2 += 1)
        S16(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 512 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 256 + 1; c2 += 1)
        S17(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 512 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 512 + 1; c2 += 1)
        S18(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 256 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 512 + 1; c2 += 1)
        S19(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 256 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 256 + 1; c2 += 1)
        S20(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 256 + 1; c2 += 1)
        S21(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 1; c2 += 1)
        S22(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 1; c2 += 1)
        S23(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 1; c2 += 1)
        S24(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 1; c2 += 1)
        S25(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 1; c2 += 1)
        S26(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 1; c2 += 1)
        S27(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 1; c2 += 1)
        S28(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 1; c2 += 1)
        S29(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 1; c2 += 1)
        S30(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 1; c2 += 1)
        S31(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 1; c2 += 1)
        S32(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 1; c2 += 1)
        S33(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 1; c2 += 1)
        S34(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 1; c2 += 1)
        S35(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 1; c2 += 1)
        S36(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 < R; c1 += 1)
      // parallel
      for (int c2 = 0; c2 < C; c2 += 1)
        S37_0(c0, c1, c2);
}
