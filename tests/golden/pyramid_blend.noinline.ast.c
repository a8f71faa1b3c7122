---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S1(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S2(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S3(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 4) / 2 + 1; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C + 3; c1 += 1)
      S4(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 4) / 2 + 1; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (C + 4) / 2 + 1; c1 += 1)
      S5(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S6(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S7(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S8(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S9(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 4) / 4 + 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (C + 4) / 2 + 1; c1 += 1)
      S10(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 4) / 4 + 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (C + 4) / 4 + 2; c1 += 1)
      S11(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 8) / 8 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S12(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 8) / 8 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S13(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 8) / 8 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S14(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 8) / 8 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S15(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 8) / 8 + 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (C + 4) / 4 + 2; c1 += 1)
      S16(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= (R + 8) / 8 + 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (C + 8) / 8 + 2; c1 += 1)
      S17(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S18(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S19(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S20_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S21(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S22(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S23_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S24_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 8) / 8 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S25_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S26(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S27(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S28(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S29(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S30_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 8) / 8 + 2; c2 += 1)
        S31(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S32(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S33_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S34_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 4 + 2; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S35_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S36(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S37(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S38(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S39(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S40_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 4 + 2; c2 += 1)
        S41(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S42(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S43_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S44_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= (R + 4) / 2 + 1; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S45_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= (C + 4) / 2 + 1; c2 += 1)
        S46(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S47(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S48_0(c0, c1, c2);
}
