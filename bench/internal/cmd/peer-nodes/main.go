package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nodesift/sift/bench"
	"github.com/nodesift/sift/inventory"
)

func main() {
	n := flag.Int("nodes", 100000, "number of nodes (Slurm) and ranks (Flux)")
	out := flag.String("out", ".", "directory to write the node files to")
	flag.Parse()
	if err := writeAll(*n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "peer-nodes:", err)
		os.Exit(1)
	}
}

func writeAll(n int, out string) error {
	if n <= 0 || n > 10000000 {
		return fmt.Errorf("-nodes %d: want 1 to 10,000,000", n)
	}
	for _, d := range []bench.Dataset{bench.PeerSlurm, bench.PeerFlux} {
		nodes, err := d.Nodes(n)
		if err != nil {
			return err
		}
		path := filepath.Join(out, d.Name+"-"+strconv.Itoa(n)+".json")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		err = inventory.WriteNodeFile(w, nodes)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Println(path)
	}
	return nil
}
