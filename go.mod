module github.com/sonde-trace/sonde

go 1.26.0

require github.com/cilium/ebpf v0.20.0

require golang.org/x/sys v0.49.0

require github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724

require (
	github.com/klauspost/compress v1.20.4
	go.etcd.io/bbolt v1.4.3
	golang.org/x/arch v0.32.0
)
