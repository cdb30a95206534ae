// Command convert-inventory writes the benchmark's real-cluster node files
// (bench/testdata/cirrus.json and bench/testdata/grid5000.json) from the
// project's shared cluster data. Run it from the bench directory:
//
//	go run ./internal/cmd/convert-inventory -src ../../shared/data/clusters -out testdata
package main
