package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nodesift/sift/bench/internal/convert"
)

func main() {
	src := flag.String("src", "../../shared/data/clusters", "directory holding the shared cluster data")
	out := flag.String("out", "testdata", "directory to write the node files to")
	flag.Parse()
	if err := convertAll(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "convert-inventory:", err)
		os.Exit(1)
	}
}

func convertAll(src, out string) error {
	confPath := filepath.Join(src, "epcc-cirrus-slurm.conf")
	conf, err := os.ReadFile(confPath)
	if err != nil {
		return err
	}
	cirrus, err := convert.SlurmConf(confPath, conf)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "cirrus.json"), convert.NodeFile(cirrus), 0o644); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(src, "grid5000-reference-nodes.tar.gz"))
	if err != nil {
		return err
	}
	defer f.Close()
	g5k, err := convert.Grid5000(f)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "grid5000.json"), convert.NodeFile(g5k), 0o644)
}
