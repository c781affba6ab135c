package store

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// castagnoli is the CRC-32C table that checksums chunks and head records.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorrupt marks a record whose checksum or structure is wrong.
var errCorrupt = errors.New("corrupt record")

// compareKeys orders keys part by part, a prefix first.
func compareKeys(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareBuckets orders buckets by index, then range.
func compareBuckets(a, b analytics.Bucket) int {
	if c := cmp.Compare(a.Index, b.Index); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Min, b.Min); c != 0 {
		return c
	}
	return cmp.Compare(a.Max, b.Max)
}

// normalize copies rows into the store's canonical form: rows sorted by
// key, buckets by index, empty slices nil. A key twice in a second, or a
// bucket twice in a row, is an error.
func normalize(rows []analytics.Row) ([]analytics.Row, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([]analytics.Row, len(rows))
	for i, r := range rows {
		out[i] = analytics.Row{Value: r.Value}
		if len(r.Key) > 0 {
			out[i].Key = slices.Clone(r.Key)
		}
		if len(r.Buckets) > 0 {
			out[i].Buckets = slices.Clone(r.Buckets)
			slices.SortFunc(out[i].Buckets, compareBuckets)
			for j := 1; j < len(out[i].Buckets); j++ {
				if compareBuckets(out[i].Buckets[j-1], out[i].Buckets[j]) == 0 {
					return nil, fmt.Errorf("key %q: bucket %d twice", r.Key, out[i].Buckets[j].Index)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b analytics.Row) int { return compareKeys(a.Key, b.Key) })
	for i := 1; i < len(out); i++ {
		if compareKeys(out[i-1].Key, out[i].Key) == 0 {
			return nil, fmt.Errorf("key %q twice in one second", out[i].Key)
		}
	}
	return out, nil
}

// merge sums two intervals' rows (both canonical) key by key, and their
// buckets bucket by bucket, into new rows.
func merge(a, b []analytics.Row) []analytics.Row {
	out := make([]analytics.Row, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = compareKeys(a[i].Key, b[j].Key)
		}
		switch {
		case c < 0:
			out = append(out, cloneRow(a[i]))
			i++
		case c > 0:
			out = append(out, cloneRow(b[j]))
			j++
		default:
			out = append(out, analytics.Row{Key: slices.Clone(a[i].Key), Value: a[i].Value + b[j].Value,
				Buckets: mergeBuckets(a[i].Buckets, b[j].Buckets)})
			i++
			j++
		}
	}
	return out
}

func cloneRow(r analytics.Row) analytics.Row {
	return analytics.Row{Key: slices.Clone(r.Key), Value: r.Value, Buckets: slices.Clone(r.Buckets)}
}

// mergeBuckets sums two sorted bucket lists bucket by bucket.
func mergeBuckets(a, b []analytics.Bucket) []analytics.Bucket {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make([]analytics.Bucket, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = compareBuckets(a[i], b[j])
		}
		switch {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			s := a[i]
			s.Count += b[j].Count
			out = append(out, s)
			i++
			j++
		}
	}
	return out
}

// A head record is one interval of an open chunk, stored as it came:
//
//	crc32c(rest) uint32 LE | uvarint samples | uvarint rows |
//	rows × (uvarint parts, parts × (uvarint len, bytes), varint value,
//	        uvarint buckets, buckets × (varint index, min, max, count))
//
// Its time is in its key.

// encodeHead encodes one interval's samples and rows.
func encodeHead(samples int, rows []analytics.Row) []byte {
	b := make([]byte, 4, 64)
	b = binary.AppendUvarint(b, uint64(samples))
	b = binary.AppendUvarint(b, uint64(len(rows)))
	for _, r := range rows {
		b = appendKey(b, r.Key)
		b = binary.AppendVarint(b, r.Value)
		b = binary.AppendUvarint(b, uint64(len(r.Buckets)))
		for _, k := range r.Buckets {
			b = binary.AppendVarint(b, int64(k.Index))
			b = binary.AppendVarint(b, k.Min)
			b = binary.AppendVarint(b, int64(k.Max))
			b = binary.AppendVarint(b, k.Count)
		}
	}
	binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], castagnoli))
	return b
}

func appendKey(b []byte, key []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	for _, p := range key {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

// decodeHead decodes a head record; a bad checksum or structure is
// errCorrupt.
func decodeHead(b []byte) (samples int, rows []analytics.Row, err error) {
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != crc32.Checksum(b[4:], castagnoli) {
		return 0, nil, errCorrupt
	}
	r := &reader{b: b[4:]}
	samples = int(r.uvarint())
	n := r.count()
	if n > 0 {
		rows = make([]analytics.Row, 0, n)
	}
	for range n {
		row := analytics.Row{Key: r.key(), Value: r.varint()}
		nb := r.count()
		if nb > 0 {
			row.Buckets = make([]analytics.Bucket, 0, nb)
		}
		for range nb {
			idx, lo, hi := int32(r.varint()), r.varint(), r.varint()
			// written when 0 ended the open bucket
			b := analytics.Bucket{Index: idx, Min: lo, Max: analytics.Bound(analytics.LegacyMax(lo, hi)), Count: r.varint()}
			row.Buckets = append(row.Buckets, b)
		}
		rows = append(rows, row)
	}
	if r.err != nil || len(r.b) != 0 {
		return 0, nil, errCorrupt
	}
	return samples, rows, nil
}

// reader decodes varints from a byte slice; the first error sticks and
// later reads return zero.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint is a zig-zag varint, as binary.Varint reads it.
func (r *reader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// count reads a length that must not exceed the bytes left (every element
// takes at least one byte), so a corrupt length cannot ask for a huge
// allocation.
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.err = errCorrupt
		return 0
	}
	return int(v)
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = errCorrupt
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) key() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	key := make([]string, n)
	for i := range key {
		key[i] = string(r.bytes(r.count()))
	}
	return key
}
