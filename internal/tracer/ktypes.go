package tracer

import "github.com/sonde-trace/sonde/internal/ktype"

// kernelTypes are the running kernel's types (BTF, read on first use),
// which programs name as struct sock, curthread->comm and the like. One
// for the process: the kernel does not change under it.
var kernelTypes = &ktype.Kernel{}
