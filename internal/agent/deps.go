package agent

import (
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/store"
)

// Store is what the agent needs of the store: a *store.DB, or a MemStore.
type Store interface {
	Append(dataset string, s analytics.Second) error
	Read(dataset string, from, to time.Time, g analytics.Granularity) ([]analytics.Second, error)
	Last(dataset string) time.Time
	Delete(dataset string) error
	Prune(g analytics.Granularity, before time.Time) error
	Size(dataset string) (incore, ondisk int64)
	PutMeta(key string, value []byte) error
	GetMeta(key string) ([]byte, error)
	ListMeta(prefix string) ([]string, error)
	DeleteMeta(key string) error
	Corrupt() []string
}

var (
	_ Store = (*store.DB)(nil)
	_ Store = (*MemStore)(nil)
)

// catalogue is what the agent needs of the statistics catalogue.
type catalogue interface {
	// Parse parses a dataset name and gives its canonical form.
	Parse(name string) (*stats.Spec, string, error)
	Statistics() []analytics.Statistic
	Define(name, description, source string) (analytics.Statistic, error)
	Plan(spec *stats.Spec) (*stats.Plan, error)
}

// statsCatalogue adapts a *stats.Catalogue.
type statsCatalogue struct{ *stats.Catalogue }

func (c statsCatalogue) Parse(name string) (*stats.Spec, string, error) {
	s, err := stats.Parse(name)
	if err != nil {
		return nil, "", err
	}
	return s, s.String(), nil
}
