// The block_io cases of blocks of two and three dimensions (`BlockLoad<T, BX, I, M, BY, BZ>`):
// one kernel each (kernels/src/block_io.rs) and one check each (src/gpu_suite/block_io.rs); both
// include this file with their own `block_io_nd_cases!` and `block_exchange_cases!`.
//
// Shapes: 32x4, 8x12, 16x4x2, 8x4x4 (multiples of 32 threads: every method) and 12x4, 6x4x2 (48
// threads: the methods without warps). Each shape has a 4-byte element (u32 in 2-D, f32 in 3-D) with
// an even and an odd item count, and a narrow one (u8 in 2-D, bf16 in 3-D) whose item count gives
// Vectorize 2-, 4-, 8- or 16-byte vectors.
block_io_nd_cases! {
    block_io_2d_direct_u32_32x4_i4: Direct, u32, 32, 4, 1, 4;
    block_io_2d_direct_u32_32x4_i3: Direct, u32, 32, 4, 1, 3;
    block_io_2d_direct_u8_32x4_i8: Direct, u8, 32, 4, 1, 8;
    block_io_2d_striped_u32_32x4_i4: Striped, u32, 32, 4, 1, 4;
    block_io_2d_striped_u32_32x4_i3: Striped, u32, 32, 4, 1, 3;
    block_io_2d_striped_u8_32x4_i8: Striped, u8, 32, 4, 1, 8;
    block_io_2d_vectorize_u32_32x4_i4: Vectorize, u32, 32, 4, 1, 4;
    block_io_2d_vectorize_u32_32x4_i3: Vectorize, u32, 32, 4, 1, 3;
    block_io_2d_vectorize_u8_32x4_i8: Vectorize, u8, 32, 4, 1, 8;
    block_io_2d_transpose_u32_32x4_i4: Transpose, u32, 32, 4, 1, 4;
    block_io_2d_transpose_u32_32x4_i3: Transpose, u32, 32, 4, 1, 3;
    block_io_2d_transpose_u8_32x4_i8: Transpose, u8, 32, 4, 1, 8;
    block_io_2d_warp_transpose_u32_32x4_i4: WarpTranspose, u32, 32, 4, 1, 4;
    block_io_2d_warp_transpose_u32_32x4_i3: WarpTranspose, u32, 32, 4, 1, 3;
    block_io_2d_warp_transpose_u8_32x4_i8: WarpTranspose, u8, 32, 4, 1, 8;
    block_io_2d_warp_transpose_ts_u32_32x4_i4: WarpTransposeTimesliced, u32, 32, 4, 1, 4;
    block_io_2d_warp_transpose_ts_u32_32x4_i3: WarpTransposeTimesliced, u32, 32, 4, 1, 3;
    block_io_2d_warp_transpose_ts_u8_32x4_i8: WarpTransposeTimesliced, u8, 32, 4, 1, 8;
    block_io_2d_direct_u32_8x12_i4: Direct, u32, 8, 12, 1, 4;
    block_io_2d_direct_u32_8x12_i3: Direct, u32, 8, 12, 1, 3;
    block_io_2d_direct_u8_8x12_i2: Direct, u8, 8, 12, 1, 2;
    block_io_2d_striped_u32_8x12_i4: Striped, u32, 8, 12, 1, 4;
    block_io_2d_striped_u32_8x12_i3: Striped, u32, 8, 12, 1, 3;
    block_io_2d_striped_u8_8x12_i2: Striped, u8, 8, 12, 1, 2;
    block_io_2d_vectorize_u32_8x12_i4: Vectorize, u32, 8, 12, 1, 4;
    block_io_2d_vectorize_u32_8x12_i3: Vectorize, u32, 8, 12, 1, 3;
    block_io_2d_vectorize_u8_8x12_i2: Vectorize, u8, 8, 12, 1, 2;
    block_io_2d_transpose_u32_8x12_i4: Transpose, u32, 8, 12, 1, 4;
    block_io_2d_transpose_u32_8x12_i3: Transpose, u32, 8, 12, 1, 3;
    block_io_2d_transpose_u8_8x12_i2: Transpose, u8, 8, 12, 1, 2;
    block_io_2d_warp_transpose_u32_8x12_i4: WarpTranspose, u32, 8, 12, 1, 4;
    block_io_2d_warp_transpose_u32_8x12_i3: WarpTranspose, u32, 8, 12, 1, 3;
    block_io_2d_warp_transpose_u8_8x12_i2: WarpTranspose, u8, 8, 12, 1, 2;
    block_io_2d_warp_transpose_ts_u32_8x12_i4: WarpTransposeTimesliced, u32, 8, 12, 1, 4;
    block_io_2d_warp_transpose_ts_u32_8x12_i3: WarpTransposeTimesliced, u32, 8, 12, 1, 3;
    block_io_2d_warp_transpose_ts_u8_8x12_i2: WarpTransposeTimesliced, u8, 8, 12, 1, 2;
    block_io_2d_direct_u32_12x4_i3: Direct, u32, 12, 4, 1, 3;
    block_io_2d_direct_u8_12x4_i4: Direct, u8, 12, 4, 1, 4;
    block_io_2d_striped_u32_12x4_i3: Striped, u32, 12, 4, 1, 3;
    block_io_2d_striped_u8_12x4_i4: Striped, u8, 12, 4, 1, 4;
    block_io_2d_vectorize_u32_12x4_i3: Vectorize, u32, 12, 4, 1, 3;
    block_io_2d_vectorize_u8_12x4_i4: Vectorize, u8, 12, 4, 1, 4;
    block_io_2d_transpose_u32_12x4_i3: Transpose, u32, 12, 4, 1, 3;
    block_io_2d_transpose_u8_12x4_i4: Transpose, u8, 12, 4, 1, 4;
    block_io_3d_direct_f32_16x4x2_i4: Direct, f32, 16, 4, 2, 4;
    block_io_3d_direct_f32_16x4x2_i3: Direct, f32, 16, 4, 2, 3;
    block_io_3d_direct_bf16_16x4x2_i4: Direct, half::bf16, 16, 4, 2, 4;
    block_io_3d_striped_f32_16x4x2_i4: Striped, f32, 16, 4, 2, 4;
    block_io_3d_striped_f32_16x4x2_i3: Striped, f32, 16, 4, 2, 3;
    block_io_3d_striped_bf16_16x4x2_i4: Striped, half::bf16, 16, 4, 2, 4;
    block_io_3d_vectorize_f32_16x4x2_i4: Vectorize, f32, 16, 4, 2, 4;
    block_io_3d_vectorize_f32_16x4x2_i3: Vectorize, f32, 16, 4, 2, 3;
    block_io_3d_vectorize_bf16_16x4x2_i4: Vectorize, half::bf16, 16, 4, 2, 4;
    block_io_3d_transpose_f32_16x4x2_i4: Transpose, f32, 16, 4, 2, 4;
    block_io_3d_transpose_f32_16x4x2_i3: Transpose, f32, 16, 4, 2, 3;
    block_io_3d_transpose_bf16_16x4x2_i4: Transpose, half::bf16, 16, 4, 2, 4;
    block_io_3d_warp_transpose_f32_16x4x2_i4: WarpTranspose, f32, 16, 4, 2, 4;
    block_io_3d_warp_transpose_f32_16x4x2_i3: WarpTranspose, f32, 16, 4, 2, 3;
    block_io_3d_warp_transpose_bf16_16x4x2_i4: WarpTranspose, half::bf16, 16, 4, 2, 4;
    block_io_3d_warp_transpose_ts_f32_16x4x2_i4: WarpTransposeTimesliced, f32, 16, 4, 2, 4;
    block_io_3d_warp_transpose_ts_f32_16x4x2_i3: WarpTransposeTimesliced, f32, 16, 4, 2, 3;
    block_io_3d_warp_transpose_ts_bf16_16x4x2_i4: WarpTransposeTimesliced, half::bf16, 16, 4, 2, 4;
    block_io_3d_direct_f32_8x4x4_i4: Direct, f32, 8, 4, 4, 4;
    block_io_3d_direct_f32_8x4x4_i3: Direct, f32, 8, 4, 4, 3;
    block_io_3d_direct_bf16_8x4x4_i8: Direct, half::bf16, 8, 4, 4, 8;
    block_io_3d_striped_f32_8x4x4_i4: Striped, f32, 8, 4, 4, 4;
    block_io_3d_striped_f32_8x4x4_i3: Striped, f32, 8, 4, 4, 3;
    block_io_3d_striped_bf16_8x4x4_i8: Striped, half::bf16, 8, 4, 4, 8;
    block_io_3d_vectorize_f32_8x4x4_i4: Vectorize, f32, 8, 4, 4, 4;
    block_io_3d_vectorize_f32_8x4x4_i3: Vectorize, f32, 8, 4, 4, 3;
    block_io_3d_vectorize_bf16_8x4x4_i8: Vectorize, half::bf16, 8, 4, 4, 8;
    block_io_3d_transpose_f32_8x4x4_i4: Transpose, f32, 8, 4, 4, 4;
    block_io_3d_transpose_f32_8x4x4_i3: Transpose, f32, 8, 4, 4, 3;
    block_io_3d_transpose_bf16_8x4x4_i8: Transpose, half::bf16, 8, 4, 4, 8;
    block_io_3d_warp_transpose_f32_8x4x4_i4: WarpTranspose, f32, 8, 4, 4, 4;
    block_io_3d_warp_transpose_f32_8x4x4_i3: WarpTranspose, f32, 8, 4, 4, 3;
    block_io_3d_warp_transpose_bf16_8x4x4_i8: WarpTranspose, half::bf16, 8, 4, 4, 8;
    block_io_3d_warp_transpose_ts_f32_8x4x4_i4: WarpTransposeTimesliced, f32, 8, 4, 4, 4;
    block_io_3d_warp_transpose_ts_f32_8x4x4_i3: WarpTransposeTimesliced, f32, 8, 4, 4, 3;
    block_io_3d_warp_transpose_ts_bf16_8x4x4_i8: WarpTransposeTimesliced, half::bf16, 8, 4, 4, 8;
    block_io_3d_direct_f32_6x4x2_i4: Direct, f32, 6, 4, 2, 4;
    block_io_3d_direct_bf16_6x4x2_i3: Direct, half::bf16, 6, 4, 2, 3;
    block_io_3d_striped_f32_6x4x2_i4: Striped, f32, 6, 4, 2, 4;
    block_io_3d_striped_bf16_6x4x2_i3: Striped, half::bf16, 6, 4, 2, 3;
    block_io_3d_vectorize_f32_6x4x2_i4: Vectorize, f32, 6, 4, 2, 4;
    block_io_3d_vectorize_bf16_6x4x2_i3: Vectorize, half::bf16, 6, 4, 2, 3;
    block_io_3d_transpose_f32_6x4x2_i4: Transpose, f32, 6, 4, 2, 4;
    block_io_3d_transpose_bf16_6x4x2_i3: Transpose, half::bf16, 6, 4, 2, 3;
}

// Block exchanges on the same shapes: all four exchanges (`warp`), or blocked <-> striped only
// (`striped`: 48 threads are not whole warps).
block_exchange_cases! {
    block_exchange_u32_32x4_i4: warp, u32, 32, 4, 1, 4;
    block_exchange_u8_32x4_i8: warp, u8, 32, 4, 1, 8;
    block_exchange_u32_8x12_i3: warp, u32, 8, 12, 1, 3;
    block_exchange_u8_8x12_i2: warp, u8, 8, 12, 1, 2;
    block_exchange_u32_12x4_i3: striped, u32, 12, 4, 1, 3;
    block_exchange_u8_12x4_i4: striped, u8, 12, 4, 1, 4;
    block_exchange_f32_16x4x2_i4: warp, f32, 16, 4, 2, 4;
    block_exchange_bf16_16x4x2_i4: warp, half::bf16, 16, 4, 2, 4;
    block_exchange_f32_8x4x4_i3: warp, f32, 8, 4, 4, 3;
    block_exchange_bf16_8x4x4_i8: warp, half::bf16, 8, 4, 4, 8;
    block_exchange_f32_6x4x2_i4: striped, f32, 6, 4, 2, 4;
    block_exchange_bf16_6x4x2_i3: striped, half::bf16, 6, 4, 2, 3;
}
