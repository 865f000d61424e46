//go:build amd64 && gc && !purego

#include "textflag.h"

// BLAKE2sp's eight BLAKE2s leaves compressed in one pass with AVX-512 (VL
// and F, on 256-bit registers): the same lane layout as blake2sp_amd64.s,
// with rotations done by VPRORD and the sixteen transposed message words held
// in Y16..Y31, so nothing is spilled. See blake2sp_amd64.go.

DATA iv512<>+0(SB)/4, $0x6a09e667
DATA iv512<>+4(SB)/4, $0xbb67ae85
DATA iv512<>+8(SB)/4, $0x3c6ef372
DATA iv512<>+12(SB)/4, $0xa54ff53a
DATA iv512<>+16(SB)/4, $0x510e527f
DATA iv512<>+20(SB)/4, $0x9b05688c
DATA iv512<>+24(SB)/4, $0x1f83d9ab
DATA iv512<>+28(SB)/4, $0x5be0cd19
GLOBL iv512<>(SB), RODATA|NOPTR, $32

// G4 runs the BLAKE2s G function on four (a, b, c, d) quadruples at once,
// with message registers x0..x3 (first) and y0..y3 (second).
#define G4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3, x0, x1, x2, x3, y0, y1, y2, y3) \
	VPADDD x0, a0, a0;     \
	VPADDD x1, a1, a1;     \
	VPADDD x2, a2, a2;     \
	VPADDD x3, a3, a3;     \
	VPADDD b0, a0, a0;     \
	VPADDD b1, a1, a1;     \
	VPADDD b2, a2, a2;     \
	VPADDD b3, a3, a3;     \
	VPXOR  a0, d0, d0;     \
	VPXOR  a1, d1, d1;     \
	VPXOR  a2, d2, d2;     \
	VPXOR  a3, d3, d3;     \
	VPRORD $16, d0, d0;    \
	VPRORD $16, d1, d1;    \
	VPRORD $16, d2, d2;    \
	VPRORD $16, d3, d3;    \
	VPADDD d0, c0, c0;     \
	VPADDD d1, c1, c1;     \
	VPADDD d2, c2, c2;     \
	VPADDD d3, c3, c3;     \
	VPXOR  c0, b0, b0;     \
	VPXOR  c1, b1, b1;     \
	VPXOR  c2, b2, b2;     \
	VPXOR  c3, b3, b3;     \
	VPRORD $12, b0, b0;    \
	VPRORD $12, b1, b1;    \
	VPRORD $12, b2, b2;    \
	VPRORD $12, b3, b3;    \
	VPADDD y0, a0, a0;     \
	VPADDD y1, a1, a1;     \
	VPADDD y2, a2, a2;     \
	VPADDD y3, a3, a3;     \
	VPADDD b0, a0, a0;     \
	VPADDD b1, a1, a1;     \
	VPADDD b2, a2, a2;     \
	VPADDD b3, a3, a3;     \
	VPXOR  a0, d0, d0;     \
	VPXOR  a1, d1, d1;     \
	VPXOR  a2, d2, d2;     \
	VPXOR  a3, d3, d3;     \
	VPRORD $8, d0, d0;     \
	VPRORD $8, d1, d1;     \
	VPRORD $8, d2, d2;     \
	VPRORD $8, d3, d3;     \
	VPADDD d0, c0, c0;     \
	VPADDD d1, c1, c1;     \
	VPADDD d2, c2, c2;     \
	VPADDD d3, c3, c3;     \
	VPXOR  c0, b0, b0;     \
	VPXOR  c1, b1, b1;     \
	VPXOR  c2, b2, b2;     \
	VPXOR  c3, b3, b3;     \
	VPRORD $7, b0, b0;     \
	VPRORD $7, b1, b1;     \
	VPRORD $7, b2, b2;     \
	VPRORD $7, b3, b3

// ROUND512 is one BLAKE2s round: columns then diagonals; s0..s15 are the
// message registers the round's sigma permutation selects.
#define ROUND512(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15) \
	G4(Y0, Y4, Y8, Y12, Y1, Y5, Y9, Y13, Y2, Y6, Y10, Y14, Y3, Y7, Y11, Y15, s0, s2, s4, s6, s1, s3, s5, s7); \
	G4(Y0, Y5, Y10, Y15, Y1, Y6, Y11, Y12, Y2, Y7, Y8, Y13, Y3, Y4, Y9, Y14, s8, s10, s12, s14, s9, s11, s13, s15)

// TRANSPOSE4 loads message words 4g..4g+3 (byte offset off = 16g within each
// 64-byte block) of the eight blocks at SI and transposes them into m0..m3,
// one vector per word, using Y0..Y7.
#define TRANSPOSE4(off, m0, m1, m2, m3) \
	VMOVDQU     off(SI), X0;          \
	VMOVDQU     (off+64)(SI), X1;     \
	VMOVDQU     (off+128)(SI), X2;    \
	VMOVDQU     (off+192)(SI), X3;    \
	VINSERTI128 $1, (off+256)(SI), Y0, Y0; \
	VINSERTI128 $1, (off+320)(SI), Y1, Y1; \
	VINSERTI128 $1, (off+384)(SI), Y2, Y2; \
	VINSERTI128 $1, (off+448)(SI), Y3, Y3; \
	VPUNPCKLDQ  Y1, Y0, Y4;           \
	VPUNPCKHDQ  Y1, Y0, Y5;           \
	VPUNPCKLDQ  Y3, Y2, Y6;           \
	VPUNPCKHDQ  Y3, Y2, Y7;           \
	VPUNPCKLQDQ Y6, Y4, m0;           \
	VPUNPCKHQDQ Y6, Y4, m1;           \
	VPUNPCKLQDQ Y7, Y5, m2;           \
	VPUNPCKHQDQ Y7, Y5, m3

// FINISH folds the working words v[w] (yw) and v[w+8] (yw8) into the
// chaining value h[w] of all leaves.
#define FINISH(w, yw, yw8) \
	VPXOR   yw8, yw, yw;        \
	VPXOR   (32*w)(DI), yw, yw; \
	VMOVDQU yw, (32*w)(DI)

// func blake2spBlocksAVX512(h *[8][8]uint32, p []byte, t uint64)
TEXT ·blake2spBlocksAVX512(SB), NOSPLIT, $8-40
	MOVQ h+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ t+32(FP), R8
	SHRQ $9, CX
	JZ   done

loop:
	ADDQ $64, R8
	MOVQ R8, 0(SP)

	TRANSPOSE4(0, Y16, Y17, Y18, Y19)
	TRANSPOSE4(16, Y20, Y21, Y22, Y23)
	TRANSPOSE4(32, Y24, Y25, Y26, Y27)
	TRANSPOSE4(48, Y28, Y29, Y30, Y31)

	VMOVDQU      0(DI), Y0
	VMOVDQU      32(DI), Y1
	VMOVDQU      64(DI), Y2
	VMOVDQU      96(DI), Y3
	VMOVDQU      128(DI), Y4
	VMOVDQU      160(DI), Y5
	VMOVDQU      192(DI), Y6
	VMOVDQU      224(DI), Y7
	VPBROADCASTD iv512<>+0(SB), Y8
	VPBROADCASTD iv512<>+4(SB), Y9
	VPBROADCASTD iv512<>+8(SB), Y10
	VPBROADCASTD iv512<>+12(SB), Y11
	VPBROADCASTD iv512<>+16(SB), Y12
	VPBROADCASTD iv512<>+20(SB), Y13
	VPBROADCASTD 0(SP), Y14
	VPBROADCASTD 4(SP), Y15
	VPXOR        Y14, Y12, Y12
	VPXOR        Y15, Y13, Y13
	VPBROADCASTD iv512<>+24(SB), Y14
	VPBROADCASTD iv512<>+28(SB), Y15

	ROUND512(Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31)
	ROUND512(Y30, Y26, Y20, Y24, Y25, Y31, Y29, Y22, Y17, Y28, Y16, Y18, Y27, Y23, Y21, Y19)
	ROUND512(Y27, Y24, Y28, Y16, Y21, Y18, Y31, Y29, Y26, Y30, Y19, Y22, Y23, Y17, Y25, Y20)
	ROUND512(Y23, Y25, Y19, Y17, Y29, Y28, Y27, Y30, Y18, Y22, Y21, Y26, Y20, Y16, Y31, Y24)
	ROUND512(Y25, Y16, Y21, Y23, Y18, Y20, Y26, Y31, Y30, Y17, Y27, Y28, Y22, Y24, Y19, Y29)
	ROUND512(Y18, Y28, Y22, Y26, Y16, Y27, Y24, Y19, Y20, Y29, Y23, Y21, Y31, Y30, Y17, Y25)
	ROUND512(Y28, Y21, Y17, Y31, Y30, Y29, Y20, Y26, Y16, Y23, Y22, Y19, Y25, Y18, Y24, Y27)
	ROUND512(Y29, Y27, Y23, Y30, Y28, Y17, Y19, Y25, Y21, Y16, Y31, Y20, Y24, Y22, Y18, Y26)
	ROUND512(Y22, Y31, Y30, Y25, Y27, Y19, Y16, Y24, Y28, Y18, Y29, Y23, Y17, Y20, Y26, Y21)
	ROUND512(Y26, Y18, Y24, Y20, Y23, Y22, Y17, Y21, Y31, Y27, Y25, Y30, Y19, Y28, Y29, Y16)

	FINISH(0, Y0, Y8)
	FINISH(1, Y1, Y9)
	FINISH(2, Y2, Y10)
	FINISH(3, Y3, Y11)
	FINISH(4, Y4, Y12)
	FINISH(5, Y5, Y13)
	FINISH(6, Y6, Y14)
	FINISH(7, Y7, Y15)

	ADDQ $512, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
