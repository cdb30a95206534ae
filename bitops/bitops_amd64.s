#include "textflag.h"

// Every vector loop has the signature of vectorLoop: d, a, b, c, n. It
// takes n > 0 16-word blocks (four 32-byte vectors) a step, with d's block
// at DI, a's at SI, b's at DX and c's at BX, and the loop counter in CX.
// Go's operand order is the reverse of Intel's: VPANDN x, y, z sets
// z = ^y & x.

// LOADR loads the block at R into Y0-Y3.
#define LOADR(R) \
	VMOVDQU 0(R), Y0; \
	VMOVDQU 32(R), Y1; \
	VMOVDQU 64(R), Y2; \
	VMOVDQU 96(R), Y3

// OPR sets Yk = Yk op R[k] for the block at R (for VPANDN: ^Yk & R[k]).
#define OPR(op, R) \
	op 0(R), Y0, Y0; \
	op 32(R), Y1, Y1; \
	op 64(R), Y2, Y2; \
	op 96(R), Y3, Y3

// STORED stores Y0-Y3 into d's block.
#define STORED \
	VMOVDQU Y0, 0(DI); \
	VMOVDQU Y1, 32(DI); \
	VMOVDQU Y2, 64(DI); \
	VMOVDQU Y3, 96(DI)

// LOOP defines a vector loop whose step is body.
#define LOOP(name, body) \
	TEXT name(SB), NOSPLIT, $0-40; \
	MOVQ d+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ c+24(FP), BX; \
	MOVQ n+32(FP), CX; \
loop: \
	body; \
	STORED; \
	ADDQ $128, DI; \
	ADDQ $128, SI; \
	ADDQ $128, DX; \
	ADDQ $128, BX; \
	DECQ CX; \
	JNZ  loop; \
	VZEROUPPER; \
	RET

// d &= a
#define AND LOADR(DI); OPR(VPAND, SI)
LOOP(·andAVX2, AND)

// d &= a & b
#define AND2 LOADR(DI); OPR(VPAND, SI); OPR(VPAND, DX)
LOOP(·and2AVX2, AND2)

// d |= a
#define OR LOADR(DI); OPR(VPOR, SI)
LOOP(·orAVX2, OR)

// d |= a | b
#define OR2 LOADR(DI); OPR(VPOR, SI); OPR(VPOR, DX)
LOOP(·or2AVX2, OR2)

// d = ^a & d
#define ANDNOT LOADR(SI); OPR(VPANDN, DI)
LOOP(·andNotAVX2, ANDNOT)

// d = ^d & a (a: the live set)
#define NOT LOADR(DI); OPR(VPANDN, SI)
LOOP(·notAVX2, NOT)

// d = ^b & a (a: hi, b: lo)
#define DIFF LOADR(DX); OPR(VPANDN, SI)
LOOP(·diffAVX2, DIFF)

// d |= ^b & a
#define ORDIFF LOADR(DX); OPR(VPANDN, SI); OPR(VPOR, DI)
LOOP(·orDiffAVX2, ORDIFF)

// d = a | ^c & b (a: the other span, b: hi, c: lo)
#define UNIONDIFF LOADR(BX); OPR(VPANDN, DX); OPR(VPOR, SI)
LOOP(·unionDiffAVX2, UNIONDIFF)

// POP4 adds the counts of the four words at off(SI) to AX, BX, R10, R11:
// four accumulators, so the adds do not wait on one another.
#define POP4(off) \
	POPCNTQ off+0(SI), R8; \
	POPCNTQ off+8(SI), R9; \
	POPCNTQ off+16(SI), R12; \
	POPCNTQ off+24(SI), R13; \
	ADDQ R8, AX; \
	ADDQ R9, BX; \
	ADDQ R12, R10; \
	ADDQ R13, R11

// func countPOPCNT(w *uint64, n int) int
TEXT ·countPOPCNT(SB), NOSPLIT, $0-24
	MOVQ w+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	XORQ BX, BX
	XORQ R10, R10
	XORQ R11, R11
loop:
	POP4(0)
	POP4(32)
	POP4(64)
	POP4(96)
	ADDQ $128, SI
	DECQ CX
	JNZ  loop
	ADDQ BX, AX
	ADDQ R11, R10
	ADDQ R10, AX
	MOVQ AX, ret+16(FP)
	RET

// func andAnyAVX2(d, a, b *uint64, n int) bool: d = a & b over n 16-word
// blocks, and whether a word of d is not zero (two accumulators).
TEXT ·andAnyAVX2(SB), NOSPLIT, $0-33
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
anyloop:
	LOADR(SI)
	OPR(VPAND, DX)
	STORED
	VPOR Y0, Y4, Y4
	VPOR Y1, Y5, Y5
	VPOR Y2, Y4, Y4
	VPOR Y3, Y5, Y5
	ADDQ $128, DI
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNZ  anyloop
	VPOR   Y4, Y5, Y4
	VPTEST Y4, Y4
	SETNE  ret+32(FP)
	VZEROUPPER
	RET

// func andNotAnyAVX2(a, b, c *uint64, n int) bool: whether a & b &^ c has
// a member in n 16-word blocks, stopping at the first block that has one.
TEXT ·andNotAnyAVX2(SB), NOSPLIT, $0-33
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ c+16(FP), BX
	MOVQ n+24(FP), CX
nloop:
	LOADR(BX)
	OPR(VPANDN, DX)
	OPR(VPAND, SI)
	VPOR   Y0, Y1, Y0
	VPOR   Y2, Y3, Y2
	VPOR   Y0, Y2, Y0
	VPTEST Y0, Y0
	JNZ    nfound
	ADDQ $128, SI
	ADDQ $128, DX
	ADDQ $128, BX
	DECQ CX
	JNZ  nloop
	MOVB $0, ret+32(FP)
	VZEROUPPER
	RET
nfound:
	MOVB $1, ret+32(FP)
	VZEROUPPER
	RET
