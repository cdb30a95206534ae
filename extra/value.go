package extra

// MaxDepth is json-c's default nesting limit (JSON_TOKENER_DEFAULT_DEPTH),
// which Slurm's JSON serializer keeps: a value may sit inside at most
// MaxDepth-1 arrays and objects, or the document is rejected and the node
// has no extra data.
const MaxDepth = 32

// Kind is the JSON type of a node's extra-data value; in Slurm the node's
// type alone decides how a leaf compares.
type Kind uint8

// The kinds of extra-data values.
const (
	KindMissing  Kind = iota // key absent
	KindNumber               // JSON integer or real, compared as float64
	KindString               // compared byte-wise
	KindBool                 // false < true
	KindUnusable             // null, object or array: matches nothing
)

// Value is one node's extra-data value under one key.
type Value struct {
	Kind Kind
	Num  float64
	Str  string
	Bool bool
}
