// Package convert turns the real cluster descriptions under the project's
// shared data (the EPCC Cirrus slurm.conf and the Grid'5000 reference node
// files) into small sift node files that the benchmark suites embed, so that
// nothing at benchmark time reads the shared data.
package convert
