---- ast ----
{
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C + 3; c1 += 1)
      S0_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = -1792; c0 <= 1792; c0 += 1)
    S1_0(c0);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S2_0(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 2 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C + 3; c1 += 1)
      S3(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 2 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 2 + 3; c1 += 1)
      S4(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S5(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 3; c2 += 1)
        S6(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 4 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 2 + 3; c1 += 1)
      S7(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 4 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 4 + 3; c1 += 1)
      S8(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 3; c2 += 1)
        S9(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 3; c2 += 1)
        S10(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 8 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 4 + 3; c1 += 1)
      S11(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 8 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 8 + 3; c1 += 1)
      S12(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 3; c2 += 1)
        S13(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 3; c2 += 1)
        S14(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 16 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 8 + 3; c1 += 1)
      S15(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 16 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 16 + 3; c1 += 1)
      S16(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 3; c2 += 1)
        S17(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 3; c2 += 1)
        S18(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 32 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 16 + 3; c1 += 1)
      S19(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 32 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 32 + 3; c1 += 1)
      S20(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 3; c2 += 1)
        S21(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 3; c2 += 1)
        S22(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 64 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 32 + 3; c1 += 1)
      S23(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 64 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 64 + 3; c1 += 1)
      S24(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 3; c2 += 1)
        S25(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 3; c2 += 1)
        S26(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 128 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 64 + 3; c1 += 1)
      S27(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 128 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 128 + 3; c1 += 1)
      S28(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 3; c2 += 1)
        S29(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 128 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 3; c2 += 1)
        S30(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 3; c2 += 1)
        S31(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C + 3; c2 += 1)
        S32(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 128 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 128 + 3; c1 += 1)
      S33_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 64 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 128 + 3; c1 += 1)
      S34(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 64 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 64 + 3; c1 += 1)
      S35(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 128 + 3; c2 += 1)
        S36(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 64 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 3; c2 += 1)
        S37(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 64 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 64 + 3; c1 += 1)
      S38_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 32 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 64 + 3; c1 += 1)
      S39(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 32 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 32 + 3; c1 += 1)
      S40(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 64 + 3; c2 += 1)
        S41(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 32 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 3; c2 += 1)
        S42(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 32 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 32 + 3; c1 += 1)
      S43_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 16 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 32 + 3; c1 += 1)
      S44(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 16 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 16 + 3; c1 += 1)
      S45(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 32 + 3; c2 += 1)
        S46(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 16 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 3; c2 += 1)
        S47(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 16 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 16 + 3; c1 += 1)
      S48_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 8 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 16 + 3; c1 += 1)
      S49(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 8 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 8 + 3; c1 += 1)
      S50(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 16 + 3; c2 += 1)
        S51(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 8 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 3; c2 += 1)
        S52(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 8 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 8 + 3; c1 += 1)
      S53_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 4 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 8 + 3; c1 += 1)
      S54(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 4 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 4 + 3; c1 += 1)
      S55(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 8 + 3; c2 += 1)
        S56(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 4 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 3; c2 += 1)
        S57(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 4 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 4 + 3; c1 += 1)
      S58_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 2 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 4 + 3; c1 += 1)
      S59(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 2 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 2 + 3; c1 += 1)
      S60(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 4 + 3; c2 += 1)
        S61(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 7; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= R / 2 + 3; c1 += 1)
      // parallel
      for (int c2 = 0; c2 <= C / 2 + 3; c2 += 1)
        S62(c0, c1, c2);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R / 2 + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 2 + 3; c1 += 1)
      S63_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C / 2 + 3; c1 += 1)
      S64(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C + 3; c1 += 1)
      S65(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= R + 3; c0 += 1)
    // parallel
    for (int c1 = 0; c1 <= C + 3; c1 += 1)
      S66_0(c0, c1);
  #pragma omp parallel for
  for (int c0 = 0; c0 <= 2; c0 += 1)
    // parallel
    for (int c1 = 0; c1 < R; c1 += 1)
      // parallel
      for (int c2 = 0; c2 < C; c2 += 1)
        S67_0(c0, c1, c2);
}
