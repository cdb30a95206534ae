package vm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
)

// Opcode is the operation of one instruction.
type Opcode uint8

// The opcodes. Leaf opcodes push one set of nodes; And and Or pop the top
// set and combine it into the new top; Not complements the top within the
// live nodes; the jumps leave the stack as it is.
const (
	// OpFalse pushes the empty set.
	OpFalse Opcode = iota
	// OpTrue pushes every live node.
	OpTrue
	// OpExtra pushes the nodes satisfying the Slurm extra leaf Extras[A].
	OpExtra
	// OpProperty pushes the nodes having property (or hostname) Props[A].
	OpProperty
	// OpRanks pushes the nodes whose rank is in RankSets[A].
	OpRanks
	// OpHosts pushes the nodes whose hostname matches HostSets[A].
	OpHosts
	// OpAnd pops the top set and intersects the new top with it.
	OpAnd
	// OpOr pops the top set and unites the new top with it.
	OpOr
	// OpNot replaces the top set with the live nodes not in it.
	OpNot
	// OpAndNot pops the top set and removes its members from the new top
	// (a fused And of Not: one pass instead of two).
	OpAndNot
	// OpJumpIfEmpty continues at instruction A when the top set is empty.
	OpJumpIfEmpty
	// OpJumpIfFull continues at instruction A when the top set holds every
	// live node.
	OpJumpIfFull
	// OpAnd2 pops the two top sets and intersects the new top with both
	// (two Ands in one pass over the words: a pass costs about the same
	// whether it reads two sets or three).
	OpAnd2
	// OpOr2 pops the two top sets and unites the new top with both.
	OpOr2
	// OpExtraRange pushes the nodes whose value under a key lies in the
	// range Ranges[A] (a lower and an upper bound of one key in one leaf).
	OpExtraRange
	opCount
)

var opNames = [...]string{
	OpFalse:       "false",
	OpTrue:        "true",
	OpExtra:       "extra",
	OpProperty:    "property",
	OpRanks:       "ranks",
	OpHosts:       "hosts",
	OpAnd:         "and",
	OpOr:          "or",
	OpNot:         "not",
	OpAndNot:      "and_not",
	OpJumpIfEmpty: "jump_if_empty",
	OpJumpIfFull:  "jump_if_full",
	OpAnd2:        "and2",
	OpOr2:         "or2",
	OpExtraRange:  "extra_range",
}

// String returns the opcode's mnemonic.
func (op Opcode) String() string {
	if op < opCount {
		return opNames[op]
	}
	return "op(" + strconv.Itoa(int(op)) + ")"
}

// Instr is one instruction: an opcode and its argument (a constant pool
// index for leaves, an instruction index for jumps).
type Instr struct {
	Op Opcode
	A  uint32
}

// ExtraLeaf is a Slurm extra-constraint leaf: the node's value under Key
// compared with Operand, which is already converted for every node type.
type ExtraLeaf struct {
	Key     string
	Op      extra.Op
	src     srcRange // 8 bytes a leaf: the only growth of a Slurm program
	Operand index.Operand
}

// RangeLeaf is a Slurm extra-constraint leaf of two comparisons of one
// key, a lower and an upper bound.
type RangeLeaf struct {
	Key   string
	Range index.Range
	src   srcRange
}

// HostSet is a hostlist leaf: the expression as written, for display, and
// the queries that decide membership without expanding it.
type HostSet struct {
	Text    string
	Queries []index.HostQuery
	src     srcRange
}

// Program is a compiled constraint: bytecode and its constant pool. It is
// immutable once built and safe for concurrent use by many Machines.
type Program struct {
	code     []Instr
	extras   []ExtraLeaf
	ranges   []RangeLeaf
	props    []string
	propSrc  []srcRange // by props index
	rankSets [][]index.RankRange
	rankSrc  []srcRange // by rankSets index
	hostSets []HostSet
	depth    int
	// within[pc] bounds the Extra or ExtraRange leaf at pc by the sets it
	// is intersected with (see leafBounds); nil when no leaf is bounded.
	within []bound
}

// bound is how far the set of an Extra leaf matters: everywhere, or only
// inside the window of the set below it (an And, an AndNot, or the first
// operand of an And2 pops it), or of the two below it (the second operand
// of an And2).
type bound uint8

const (
	unbounded bound = iota
	belowOne
	belowTwo
)

// leafBounds finds the Extra and ExtraRange leaves whose set meets nothing but an
// intersection with the sets below it: between the leaf and the And, And2
// or AndNot that pops it there is no jump and no instruction that writes
// the leaf's slot, so the sets below are those the leaf is then
// intersected with, as they are when it runs. Such a leaf need be exact
// only inside their windows. It returns nil when there is none.
func leafBounds(code []Instr) []bound {
	var out []bound
	for pc, in := range code {
		if in.Op != OpExtra && in.Op != OpExtraRange {
			continue
		}
		if b := leafBound(code[pc+1:]); b != unbounded {
			if out == nil {
				out = make([]bound, len(code))
			}
			out[pc] = b
		}
	}
	return out
}

// leafBound is the bound of a leaf followed by next.
func leafBound(next []Instr) bound {
	top := 0 // slots pushed above the leaf's
	for _, in := range next {
		switch in.Op {
		case OpFalse, OpTrue, OpExtra, OpExtraRange, OpProperty, OpRanks, OpHosts:
			top++
		case OpNot:
			if top == 0 {
				return unbounded
			}
		case OpAnd, OpOr, OpAndNot:
			switch {
			case top == 0 && in.Op != OpOr:
				return belowOne
			case top <= 1:
				return unbounded
			}
			top--
		case OpAnd2, OpOr2:
			switch {
			case top == 0 && in.Op == OpAnd2:
				return belowTwo
			case top == 1 && in.Op == OpAnd2:
				return belowOne
			case top <= 2:
				return unbounded
			}
			top -= 2
		default: // a jump
			return unbounded
		}
	}
	return unbounded
}

// Len is the number of instructions.
func (p *Program) Len() int { return len(p.code) }

// Code returns the instructions. The caller must not modify them.
func (p *Program) Code() []Instr { return p.code }

// Span is a byte range of the source constraint, text[Start:End].
type Span struct{ Start, End int }

// srcRange is a leaf's Span kept in 8 bytes; end 0 means none.
type srcRange struct{ start, end uint32 }

// Source returns the range of the source constraint that the leaf
// instruction at pc was compiled from; ok is false for other instructions
// and for leaves whose front end knows no range.
func (p *Program) Source(pc int) (Span, bool) {
	if pc < 0 || pc >= len(p.code) {
		return Span{}, false
	}
	var r srcRange
	switch in := p.code[pc]; in.Op {
	case OpExtra:
		r = p.extras[in.A].src
	case OpExtraRange:
		r = p.ranges[in.A].src
	case OpProperty:
		r = p.propSrc[in.A]
	case OpRanks:
		r = p.rankSrc[in.A]
	case OpHosts:
		r = p.hostSets[in.A].src
	}
	if r.end == 0 {
		return Span{}, false
	}
	return Span{int(r.start), int(r.end)}, true
}

// ErrInvalidProgram is returned by Builder.Program for instruction sequences
// that would not leave exactly one set on the stack.
var ErrInvalidProgram = errors.New("vm: invalid program")

// Label is a forward jump waiting for its target.
type Label struct {
	pc    int
	depth int
}

// Builder emits a well-formed Program: every instruction finds the operands
// it needs on the stack, every jump lands where the stack has the same depth,
// and the program leaves exactly one set. The zero Builder is ready to use.
type Builder struct {
	p     Program
	depth int
	open  int
	err   error
	next  Span // the source of the next leaf, set by Source
}

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("%w: at instruction %d: %s", ErrInvalidProgram, len(b.p.code), fmt.Sprintf(format, args...))
	}
}

func (b *Builder) emit(op Opcode, a uint32, pops, pushes int) {
	if b.depth < pops {
		b.fail("%s needs %d operands, the stack has %d", op, pops, b.depth)
		return
	}
	b.depth += pushes - pops
	if b.depth > b.p.depth {
		b.p.depth = b.depth
	}
	b.p.code = append(b.p.code, Instr{Op: op, A: a})
}

// source takes the range set by Source for the leaf being emitted.
func (b *Builder) source() srcRange {
	s := b.next
	b.next = Span{}
	if s.Start < 0 || s.End <= s.Start || uint64(s.End) > math.MaxUint32 {
		return srcRange{}
	}
	return srcRange{uint32(s.Start), uint32(s.End)}
}

// Source sets the byte range of the source constraint, text[start:end],
// that the next Extra, Property, Ranks or Hosts leaf comes from (ignored
// unless 0 <= start < end). Other instructions have none.
func (b *Builder) Source(start, end int) { b.next = Span{start, end} }

// Grow reserves room for instrs more instructions and extras more Slurm
// extra leaves, so that emitting them does not reallocate.
func (b *Builder) Grow(instrs, extras int) {
	b.p.code = slices.Grow(b.p.code, instrs)
	b.p.extras = slices.Grow(b.p.extras, extras)
}

// Const pushes the empty set (false) or every live node (true).
func (b *Builder) Const(v bool) {
	if v {
		b.emit(OpTrue, 0, 0, 1)
	} else {
		b.emit(OpFalse, 0, 0, 1)
	}
}

// Extra pushes the nodes satisfying `value(key) op operand`.
func (b *Builder) Extra(key string, op extra.Op, operand index.Operand) {
	b.p.extras = append(b.p.extras, ExtraLeaf{Key: key, Op: op, Operand: operand, src: b.source()})
	b.emit(OpExtra, uint32(len(b.p.extras)-1), 0, 1)
}

// ExtraRange pushes the nodes whose value under key lies in r: r.Lower is
// Gt or Ge and r.Upper Lt or Le, or the program is invalid. Its source
// range (Source) should cover both comparisons.
func (b *Builder) ExtraRange(key string, r index.Range) {
	if (r.Lower != extra.Gt && r.Lower != extra.Ge) || (r.Upper != extra.Lt && r.Upper != extra.Le) {
		b.fail("extra_range with bounds %s and %s", r.Lower, r.Upper)
		return
	}
	b.p.ranges = append(b.p.ranges, RangeLeaf{Key: key, Range: r, src: b.source()})
	b.emit(OpExtraRange, uint32(len(b.p.ranges)-1), 0, 1)
}

// Property pushes the nodes that have property name or are named name.
func (b *Builder) Property(name string) {
	b.p.props = append(b.p.props, name)
	b.p.propSrc = append(b.p.propSrc, b.source())
	b.emit(OpProperty, uint32(len(b.p.props)-1), 0, 1)
}

// Ranks pushes the nodes whose rank is in any of the ranges.
func (b *Builder) Ranks(ranges []index.RankRange) {
	b.p.rankSets = append(b.p.rankSets, ranges)
	b.p.rankSrc = append(b.p.rankSrc, b.source())
	b.emit(OpRanks, uint32(len(b.p.rankSets)-1), 0, 1)
}

// Hosts pushes the nodes whose hostname satisfies any of the queries; text
// is the hostlist as written, shown by Disassemble.
func (b *Builder) Hosts(text string, queries []index.HostQuery) {
	b.p.hostSets = append(b.p.hostSets, HostSet{Text: text, Queries: queries, src: b.source()})
	b.emit(OpHosts, uint32(len(b.p.hostSets)-1), 0, 1)
}

// And intersects the two top sets.
func (b *Builder) And() { b.emit(OpAnd, 0, 2, 1) }

// Or unites the two top sets.
func (b *Builder) Or() { b.emit(OpOr, 0, 2, 1) }

// And2 intersects the set below the two top sets with both of them.
func (b *Builder) And2() { b.emit(OpAnd2, 0, 3, 1) }

// Or2 unites the set below the two top sets with both of them.
func (b *Builder) Or2() { b.emit(OpOr2, 0, 3, 1) }

// Not complements the top set within the live nodes.
func (b *Builder) Not() { b.emit(OpNot, 0, 1, 1) }

// AndNot removes the top set's members from the set below it.
func (b *Builder) AndNot() { b.emit(OpAndNot, 0, 2, 1) }

// JumpIfEmpty emits a jump taken when the top set is empty; Bind sets its
// target.
func (b *Builder) JumpIfEmpty() Label { return b.jump(OpJumpIfEmpty) }

// JumpIfFull emits a jump taken when the top set holds every live node;
// Bind sets its target.
func (b *Builder) JumpIfFull() Label { return b.jump(OpJumpIfFull) }

func (b *Builder) jump(op Opcode) Label {
	l := Label{pc: len(b.p.code), depth: b.depth}
	b.emit(op, 0, 1, 1)
	b.open++
	return l
}

// Bind makes the jump l continue at the next instruction emitted.
func (b *Builder) Bind(l Label) {
	if l.pc >= len(b.p.code) || b.p.code[l.pc].A != 0 ||
		(b.p.code[l.pc].Op != OpJumpIfEmpty && b.p.code[l.pc].Op != OpJumpIfFull) {
		b.fail("bind of a label that is not an open jump")
		return
	}
	if l.depth != b.depth {
		b.fail("jump from stack depth %d lands at depth %d", l.depth, b.depth)
		return
	}
	b.p.code[l.pc].A = uint32(len(b.p.code))
	b.open--
}

// Program returns the program built so far. The Builder must not be used
// afterwards.
func (b *Builder) Program() (*Program, error) {
	switch {
	case b.err != nil:
		return nil, b.err
	case b.open != 0:
		return nil, fmt.Errorf("%w: %d jumps never bound", ErrInvalidProgram, b.open)
	case b.depth != 1:
		return nil, fmt.Errorf("%w: ends with %d sets on the stack, want 1", ErrInvalidProgram, b.depth)
	}
	p := b.p
	p.within = leafBounds(p.code)
	return &p, nil
}

// Disassemble returns the program one instruction a line: its index, the
// mnemonic and the argument it refers to.
func (p *Program) Disassemble() string {
	var sb strings.Builder
	for pc := range p.code {
		fmt.Fprintf(&sb, "%04d %s\n", pc, p.instrText(pc))
	}
	return sb.String()
}

// instrText renders one instruction with its operand.
func (p *Program) instrText(pc int) string {
	in := p.code[pc]
	switch in.Op {
	case OpExtra:
		l := &p.extras[in.A]
		num := "none"
		if l.Operand.NumOK {
			num = strconv.FormatFloat(l.Operand.Num, 'g', -1, 64)
		}
		return fmt.Sprintf("%-13s %q %s %q (num=%s bool=%t)", in.Op, l.Key, l.Op, l.Operand.Raw, num, l.Operand.Bool)
	case OpExtraRange:
		l := &p.ranges[in.A]
		return fmt.Sprintf("%-13s %q %s %q %s %q", in.Op, l.Key, l.Range.Lower, l.Range.Lo.Raw, l.Range.Upper, l.Range.Hi.Raw)
	case OpProperty:
		return fmt.Sprintf("%-13s %q", in.Op, p.props[in.A])
	case OpRanks:
		var sb strings.Builder
		for i, r := range p.rankSets[in.A] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.FormatUint(uint64(r.Lo), 10))
			if r.Hi != r.Lo {
				sb.WriteByte('-')
				sb.WriteString(strconv.FormatUint(uint64(r.Hi), 10))
			}
		}
		return fmt.Sprintf("%-13s %s", in.Op, sb.String())
	case OpHosts:
		return fmt.Sprintf("%-13s %q", in.Op, p.hostSets[in.A].Text)
	case OpJumpIfEmpty, OpJumpIfFull:
		return fmt.Sprintf("%-13s %04d", in.Op, in.A)
	}
	return in.Op.String()
}
