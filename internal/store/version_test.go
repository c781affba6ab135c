package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// chunkVersions counts the store's chunks by format version.
func chunkVersions(t *testing.T, db *DB) map[byte]int {
	t.Helper()
	n := map[byte]int{}
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketChunks).ForEach(func(_, v []byte) error {
			n[v[0]]++
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestChunkVersions writes chunks of format 1, then reopens the store,
// which writes the newest format: both read, tier by tier, the roll-ups
// are exact, and a prune that cuts a chunk of format 1 rewrites it in the
// newest.
func TestChunkVersions(t *testing.T) {
	dir := t.TempDir()
	o := testOptions()
	o.ChunkVersion = 1
	db := open(t, dir, o)
	fill(t, db, 0, 420) // 3 closed chunks of 120 seconds per dataset
	if n := chunkVersions(t, db); n[1] == 0 || n[chunkVersion] != 0 {
		t.Fatalf("chunks by version: %v, want version 1 only", n)
	}
	db.Close()
	db = open(t, dir, testOptions())
	defer db.Close()
	fill(t, db, 420, 840)
	if n := chunkVersions(t, db); n[1] == 0 || n[chunkVersion] == 0 {
		t.Fatalf("chunks by version: %v, want both", n)
	}
	for name := range generators {
		checkSeconds(t, db, name, 0, 840)
		checkRollups(t, db, name, 0, 840, 840/60)
	}
	if err := db.Prune(analytics.PerSecond, sec(300)); err != nil {
		t.Fatal(err)
	}
	for name := range generators {
		checkSeconds(t, db, name, 300, 840)
	}
	if len(db.Corrupt()) != 0 {
		t.Fatalf("corrupt: %q", db.Corrupt())
	}
	if _, err := Open(t.TempDir(), &Options{ChunkVersion: 4}); err == nil || !strings.Contains(err.Error(), "chunk version 4") {
		t.Fatalf("chunk version 4: %v", err)
	}
}

// golden is a chunk of the per-second tier written by a real sonded
// before format 2 (testdata/v1-*.chunk), with its intervals as that
// version decoded them (the .json beside it), each bucket [index, min,
// max, count]. They were made on 2026-11-26 by bin/sonded built at commit
// 4ec202e (format 1 only), archiving the default datasets, io.latency,
// syscall.latency[name=read] and others from 12:58:30 to 13:00:15 UTC on
// the development VM: the chunks of the window that closed at 13:00 were
// copied out of its store.db, and decoded by that commit's code.
type golden struct {
	Dataset   string `json:"dataset"`
	Window    int64  `json:"window"`
	Intervals []struct {
		Time    int64 `json:"time"`
		Samples int   `json:"samples"`
		Rows    []struct {
			Key     []string   `json:"key"`
			Value   int64      `json:"value"`
			Buckets [][4]int64 `json:"buckets"`
		} `json:"rows"`
	} `json:"intervals"`
}

func (g *golden) seconds() []analytics.Second {
	var out []analytics.Second
	for _, iv := range g.Intervals {
		s := analytics.Second{Time: time.Unix(iv.Time, 0).UTC(), Samples: iv.Samples}
		for _, r := range iv.Rows {
			row := analytics.Row{Key: r.Key, Value: r.Value}
			for _, b := range r.Buckets {
				row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(b[0]), Min: b[1], Max: analytics.Bound(analytics.LegacyMax(b[1], b[2])), Count: b[3]})
			}
			s.Rows = append(s.Rows, row)
		}
		out = append(out, s)
	}
	return out
}

// TestGolden decodes the chunks of every format: format 1's that a real
// sonded wrote (testdata/v1-*.chunk), and format 2's, the same intervals
// as written by the format 2 writer (testdata/v2-*.chunk, made on
// 2026-11-26 at commit 95cd094 from the .json of format 1's), and format
// 3's (testdata/v3-*.chunk, made on 2026-11-26 from main at c203462, with
// -update-golden): every interval must be what format 1 read, and coding
// them in the format written now must give them back as well, and format
// 3's chunks byte for byte.
func TestGolden(t *testing.T) {
	chunks, err := filepath.Glob("testdata/v[0-9]-*.chunk")
	if err != nil || len(chunks) == 0 {
		t.Fatalf("no golden chunks: %v", err)
	}
	c, err := newCodec()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var dists int
	versions := map[byte]int{}
	for _, path := range chunks {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		version := base[1] - '0'
		j, err := os.ReadFile(filepath.Join("testdata", "v1"+strings.TrimSuffix(base[2:], ".chunk")+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(j, &g); err != nil {
			t.Fatal(err)
		}
		want := g.seconds()
		for _, s := range want {
			for _, r := range s.Rows {
				if len(r.Buckets) > 0 {
					dists++
				}
			}
		}
		if b[0] != version {
			t.Fatalf("%s: version %d", path, b[0])
		}
		versions[version]++
		got, err := c.decodeChunk(g.Window, 1, b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got\n%+v\nwant\n%+v", path, got, want)
		}
		c.version = chunkVersion
		b2 := c.encodeChunk(g.Window, 1, got)
		got2, err := c.decodeChunk(g.Window, 1, b2)
		if err != nil || !reflect.DeepEqual(got2, got) {
			t.Fatalf("%s: format %d: %v", path, chunkVersion, err)
		}
		if version == 1 && *updateGolden {
			if err := os.WriteFile(strings.Replace(path, "v1-", fmt.Sprintf("v%d-", chunkVersion), 1), b2, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if version == chunkVersion && !bytes.Equal(b2, b) {
			t.Fatalf("%s: the format written now codes %d bytes, not the golden chunk's %d", path, len(b2), len(b))
		}
		t.Logf("%s (%s, %d intervals): format %d %d bytes, format %d %d", path, g.Dataset, len(got), version, len(b), chunkVersion, len(b2))
		// Put in a store's file as it was found, it reads through Read.
		dir := t.TempDir()
		db := open(t, dir, &Options{NoSync: true})
		if err := db.bolt.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketChunks).Put(recKey(g.Dataset, 0, g.Window), b)
		}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		db = open(t, dir, &Options{NoSync: true})
		read, err := db.Read(g.Dataset, time.Unix(g.Window, 0), time.Unix(g.Window+1800, 0), analytics.PerSecond)
		db.Close()
		if err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("%s: through Read: %v\n%+v", path, err, read)
		}
		// A changed byte is caught.
		bad := bytes.Clone(b)
		bad[len(bad)/2] ^= 1
		if _, err := c.decodeChunk(g.Window, 1, bad); err == nil {
			t.Fatalf("%s: a changed byte is not caught", path)
		}
	}
	if dists == 0 {
		t.Fatal("no distribution in the golden chunks")
	}
	for v := byte(1); v < chunkVersion; v++ {
		if versions[v] == 0 {
			t.Fatalf("no golden chunk of format %d", v)
		}
	}
}
