package store

import (
	"os"
	"testing"

	"github.com/sonde-trace/sonde/internal/fdleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(fdleak.Check(m))
}
