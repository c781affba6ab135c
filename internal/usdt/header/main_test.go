package header

import (
	"os"
	"testing"

	"github.com/sonde-trace/sonde/internal/fdleak"
)

// TestMain fails the run when the tests leave a descriptor open.
func TestMain(m *testing.M) { os.Exit(fdleak.Check(m)) }
