package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"github.com/nodesift/sift/compiler"
	"github.com/nodesift/sift/compiler/ast"
	"github.com/nodesift/sift/extra"
	"github.com/nodesift/sift/index"
	"github.com/valyala/fastjson"
)

// exprEngine is the baseline a Go developer would reach for: the constraint
// translated once to an expr-lang/expr program, run per node over the node's
// extra data as map[string]any with one reused vm.VM. Slurm's typed
// comparison (the node's JSON type decides; numbers equal within 1e-5;
// missing, null, object and array match nothing) is one helper function per
// leaf call, since expr's own == and < have different rules.
type exprEngine struct {
	prog  *vm.Program
	vm    vm.VM
	envs  []map[string]any // by node id; nil when the node has no extra data
	leafs []leaf
	out   []uint64
}

// ExprSource returns the expr-lang/expr text sift's baseline runs for a Slurm
// constraint tree: leaves become slurm(<node value>, <leaf number>) calls.
// With idents, keys that are identifiers are read as variables (expr's fast
// map load); otherwise every key is read as $env["key"].
func ExprSource(n ast.Node, idents bool) (string, error) {
	var b strings.Builder
	_, err := exprText(&b, n, 0, idents)
	return b.String(), err
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func exprText(b *strings.Builder, n ast.Node, next int, idents bool) (int, error) {
	switch n := n.(type) {
	case *ast.Compare:
		if idents && isIdent(n.Key) {
			fmt.Fprintf(b, "slurm(%s, %d)", n.Key, next)
		} else {
			fmt.Fprintf(b, "slurm($env[%s], %d)", strconv.Quote(n.Key), next)
		}
		return next + 1, nil
	case *ast.And, *ast.Or:
		xs, sep := []ast.Node(nil), " && "
		if a, ok := n.(*ast.And); ok {
			xs = a.X
		} else {
			xs, sep = n.(*ast.Or).X, " || "
		}
		if len(xs) == 0 {
			return 0, fmt.Errorf("%w: empty %T", compiler.ErrUnsupported, n)
		}
		b.WriteByte('(')
		for i, x := range xs {
			if i > 0 {
				b.WriteString(sep)
			}
			var err error
			if next, err = exprText(b, x, next, idents); err != nil {
				return 0, err
			}
		}
		b.WriteByte(')')
		return next, nil
	}
	return 0, fmt.Errorf("%w: %T", compiler.ErrUnsupported, n)
}

// exprEnvs converts every node's extra data to the map expr reads. Numbers
// become float64 (as Slurm compares them), null/object/array become nil.
func exprEnvs(nodes []index.Node) []map[string]any {
	envs := make([]map[string]any, len(nodes))
	var p fastjson.Parser
	for i := range nodes {
		if nodes[i].Extra == nil {
			continue
		}
		v, err := p.ParseBytes(nodes[i].Extra)
		if err != nil {
			continue
		}
		m := map[string]any{}
		if o, err := v.Object(); err == nil {
			o.Visit(func(k []byte, v *fastjson.Value) {
				switch v.Type() {
				case fastjson.TypeNumber:
					m[string(k)] = v.GetFloat64()
				case fastjson.TypeString:
					m[string(k)] = string(v.GetStringBytes())
				case fastjson.TypeTrue:
					m[string(k)] = true
				case fastjson.TypeFalse:
					m[string(k)] = false
				default:
					m[string(k)] = nil
				}
			})
		}
		envs[i] = m
	}
	return envs
}

func newExprEngine(n ast.Node, envs []map[string]any) (*exprEngine, error) {
	leafs, err := collectLeafs(n, nil)
	if err != nil {
		return nil, err
	}
	e := &exprEngine{envs: envs, leafs: leafs, out: make([]uint64, (len(envs)+63)/64)}
	// A key that is an identifier may still clash with an expr keyword or
	// builtin; then every key is read through $env instead.
	for _, idents := range []bool{true, false} {
		var src string
		if src, err = ExprSource(n, idents); err != nil {
			return nil, err
		}
		e.prog, err = expr.Compile(src,
			expr.Env(map[string]any{}),
			expr.AllowUndefinedVariables(),
			expr.AsBool(),
			expr.Function("slurm", e.compare, new(func(any, int) bool)),
		)
		if err == nil {
			return e, nil
		}
	}
	return nil, fmt.Errorf("bench: expr baseline: %w", err)
}

// compare is Slurm's leaf rule for one node value and leaf number.
func (e *exprEngine) compare(args ...any) (any, error) {
	l := &e.leafs[args[1].(int)]
	var v extra.Value
	switch x := args[0].(type) {
	case float64:
		v = extra.Value{Kind: extra.KindNumber, Num: x}
	case string:
		v = extra.Value{Kind: extra.KindString, Str: x}
	case bool:
		v = extra.Value{Kind: extra.KindBool, Bool: x}
	default:
		return false, nil
	}
	return l.operand.Match(v, l.op), nil
}

// Run computes the matching nodes into e.out.
func (e *exprEngine) Run() error {
	clear(e.out)
	for id, env := range e.envs {
		if env == nil {
			continue
		}
		r, err := e.vm.Run(e.prog, env)
		if err != nil {
			return fmt.Errorf("bench: expr baseline: %w", err)
		}
		if r.(bool) {
			e.out[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	return nil
}
