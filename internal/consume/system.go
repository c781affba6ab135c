package consume

import (
	"io"
	"os/exec"
)

// runSystem runs a system() command with the shell, its output to out.
func runSystem(out io.Writer, cmd string) {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Stdout = out
	c.Stderr = out
	_ = c.Run()
}
