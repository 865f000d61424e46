// Copy steps shared by executeAsm (exec_amd64.s) and fusedBMI2
// (seqs_amd64.s). Each copies from src to dst, i counting the bytes done
// up to n or past it (the callers leave slack room); X0 and X1 scratch.

// LITS32 copies 32 bytes of literals: both loads before the stores.
#define LITS32(src, dst) \
	MOVOU (src), X0   \
	MOVOU 16(src), X1 \
	MOVOU X0, (dst)   \
	MOVOU X1, 16(dst)

// MATCH32 copies 32 bytes of a match; with an offset from 16 to 31 the
// second load reads what the first store wrote.
#define MATCH32(src, dst) \
	MOVOU (src), X0   \
	MOVOU X0, (dst)   \
	MOVOU 16(src), X1 \
	MOVOU X1, 16(dst)

// COPY16 copies 16 bytes at a time from i on.
#define COPY16(src, dst, i, n, loop) \
loop:                       \
	MOVOU (src)(i*1), X0    \
	MOVOU X0, (dst)(i*1)    \
	ADDQ  $16, i            \
	CMPQ  i, n              \
	JB    loop

// COPY8 copies 8 bytes at a time from i on, through tmp.
#define COPY8(src, dst, i, n, tmp, loop) \
loop:                      \
	MOVQ (src)(i*1), tmp   \
	MOVQ tmp, (dst)(i*1)   \
	ADDQ $8, i             \
	CMPQ i, n              \
	JB   loop

// COPY1 copies one byte at a time from i on, through tmp.
#define COPY1(src, dst, i, n, tmp, loop) \
loop:                      \
	MOVB (src)(i*1), tmp   \
	MOVB tmp, (dst)(i*1)   \
	INCQ i                 \
	CMPQ i, n              \
	JB   loop
