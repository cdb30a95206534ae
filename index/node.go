package index

// Node is one node of an inventory, as every importer produces it.
type Node struct {
	// Name is the node's hostname; unique within an inventory.
	Name string
	// Rank is the node's Flux rank (by default its position).
	Rank uint32
	// Weight is the node's Slurm scheduling weight (lower is used first).
	// It sits beside Rank so that the two share one word.
	Weight uint32
	// Extra is the node's Slurm extra data exactly as slurmd --extra would
	// pass it: raw JSON text. Nil means the node has no extra data; text that
	// is not valid JSON leaves the node without parsed extra data.
	Extra []byte
	// Features are the node's features (Slurm) or properties (Flux).
	Features []string

	CPUs           int
	Boards         int
	Sockets        int
	CoresPerSocket int
	ThreadsPerCore int
	MemoryMB       uint64
	Gres           []Gres
	// State is the node's base state in lower case: idle, mixed, allocated,
	// down, drain (or drained/draining), or empty for idle.
	State      string
	Partitions []string
}

// Gres is one generic resource of a node, such as gpu:a100:4.
type Gres struct {
	Name  string
	Type  string
	Count uint64
}
