package tcp_test

import (
	"os"
	"testing"

	"github.com/sonde-trace/sonde/internal/testenv"
)

// TestMain runs the tests as root, failing the run when they leave a
// descriptor open.
func TestMain(m *testing.M) { os.Exit(testenv.Root(m)) }
