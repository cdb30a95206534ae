module github.com/nodesift/sift

go 1.26.8

require (
	github.com/RoaringBitmap/roaring/v2 v2.30.0
	github.com/expr-lang/expr v1.17.8
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/spf13/cobra v1.10.2
	github.com/valyala/fastjson v1.6.10
)

require (
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.32.0 // indirect
)
