package store

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// A chunk holds one dataset's intervals of one tier in one window, in
// columns (docs/format/store.md):
//
//	byte version (1) | crc32c(rest) uint32 LE | byte codec (0 raw, 1 zstd) |
//	uvarint body length | body, compressed by codec
//
// The body, before compression:
//
//	times    uvarint n; n offsets from the window in steps, delta-of-delta
//	samples  n × varint delta from the previous interval's
//	keys     uvarint k; k keys, sorted
//	table    uvarint t; t buckets (index, min, max), sorted, each a varint
//	         delta from the previous
//	presence k × (uvarint runs; runs alternately absent and present,
//	         starting absent)
//	values   k × (byte mode; one varint per present interval: the value,
//	         its delta, or its delta-of-delta, whichever is shortest; a
//	         distribution's value less the sum of its buckets)
//	buckets  if t > 0: k × per present interval uvarint bucket count;
//	         k × positions in the table (first a varint delta from the
//	         previous interval's first, then uvarint gaps); k × counts,
//	         each a varint delta from the same bucket's last count in
//	         the key's column (0 before its first)
const (
	chunkVersion = 1
	codecRaw     = 0
	codecZstd    = 1
)

// Value column modes.
const (
	modeRaw = iota
	modeDelta
	modeDoD
)

// codec compresses chunk bodies; one per store.
type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newCodec() (*codec, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		enc.Close()
		return nil, err
	}
	return &codec{enc: enc, dec: dec}, nil
}

func (c *codec) close() {
	c.enc.Close()
	c.dec.Close()
}

// encodeChunk encodes intervals (sorted, canonical rows, all in the window
// starting at start, on multiples of step seconds).
func (c *codec) encodeChunk(start, step int64, ivs []analytics.Second) []byte {
	body := encodeBody(start, step, ivs)
	codecID, payload := byte(codecRaw), body
	if z := c.enc.EncodeAll(body, nil); len(z) < len(body) {
		codecID, payload = codecZstd, z
	}
	out := make([]byte, 5, 6+binary.MaxVarintLen64+len(payload))
	out[0] = chunkVersion
	out = append(out, codecID)
	out = binary.AppendUvarint(out, uint64(len(body)))
	out = append(out, payload...)
	binary.LittleEndian.PutUint32(out[1:], crc32.Checksum(out[5:], castagnoli))
	return out
}

// decodeChunk checks and decodes a chunk; a bad checksum or structure is
// errCorrupt.
func (c *codec) decodeChunk(start, step int64, b []byte) ([]analytics.Second, error) {
	if len(b) < 6 || b[0] != chunkVersion || binary.LittleEndian.Uint32(b[1:]) != crc32.Checksum(b[5:], castagnoli) {
		return nil, errCorrupt
	}
	r := &reader{b: b[6:]}
	n := r.uvarint()
	if r.err != nil || n > 1<<30 {
		return nil, errCorrupt
	}
	body := r.b
	switch b[5] {
	case codecRaw:
	case codecZstd:
		var err error
		if body, err = c.dec.DecodeAll(r.b, make([]byte, 0, n)); err != nil {
			return nil, errCorrupt
		}
	default:
		return nil, errCorrupt
	}
	if uint64(len(body)) != n {
		return nil, errCorrupt
	}
	return decodeBody(start, step, body)
}

// column is a key's data across a chunk's intervals.
type column struct {
	key     []string
	present []bool
	rows    []analytics.Row // one per present interval
}

func encodeBody(start, step int64, ivs []analytics.Second) []byte {
	b := binary.AppendUvarint(nil, uint64(len(ivs)))
	b = appendTimes(b, start, step, ivs)
	cols, table := columns(ivs)
	b = binary.AppendUvarint(b, uint64(len(cols)))
	for _, c := range cols {
		b = appendKey(b, c.key)
	}
	b = binary.AppendUvarint(b, uint64(len(table)))
	var prev analytics.Bucket
	for _, t := range table {
		b = binary.AppendVarint(b, int64(t.Index)-int64(prev.Index))
		b = binary.AppendVarint(b, t.Min-prev.Min)
		b = binary.AppendVarint(b, t.Max-prev.Max)
		prev = t
	}
	for _, c := range cols {
		b = appendRuns(b, c.present)
	}
	for _, c := range cols {
		b = appendValues(b, c.rows)
	}
	if len(table) > 0 {
		b = appendBuckets(b, cols, table)
	}
	return b
}

func appendTimes(b []byte, start, step int64, ivs []analytics.Second) []byte {
	var prev, delta int64
	for i, iv := range ivs {
		off := (iv.Time.Unix() - start) / step
		switch i {
		case 0:
			b = binary.AppendUvarint(b, uint64(off))
		default:
			d := off - prev
			b = binary.AppendVarint(b, d-delta)
			delta = d
		}
		prev = off
	}
	var samples int64
	for _, iv := range ivs {
		b = binary.AppendVarint(b, int64(iv.Samples)-samples)
		samples = int64(iv.Samples)
	}
	return b
}

// columns turns intervals into one column per key, keys sorted, and the
// table of the buckets they use.
func columns(ivs []analytics.Second) ([]*column, []analytics.Bucket) {
	byKey := map[string]*column{}
	var cols []*column
	var table []analytics.Bucket
	seen := map[analytics.Bucket]bool{}
	for i, iv := range ivs {
		for _, r := range iv.Rows {
			id := string(appendKey(nil, r.Key))
			c := byKey[id]
			if c == nil {
				c = &column{key: r.Key, present: make([]bool, len(ivs))}
				byKey[id] = c
				cols = append(cols, c)
			}
			c.present[i] = true
			c.rows = append(c.rows, r)
			for _, k := range r.Buckets {
				k.Count = 0
				if !seen[k] {
					seen[k] = true
					table = append(table, k)
				}
			}
		}
	}
	slices.SortFunc(cols, func(a, b *column) int { return compareKeys(a.key, b.key) })
	slices.SortFunc(table, compareBuckets)
	return cols, table
}

// appendRuns writes presence as run lengths, alternately absent and
// present, starting absent.
func appendRuns(b []byte, present []bool) []byte {
	var runs []uint64
	cur, n := false, uint64(0)
	for _, p := range present {
		if p != cur {
			runs = append(runs, n)
			cur, n = p, 0
		}
		n++
	}
	runs = append(runs, n)
	b = binary.AppendUvarint(b, uint64(len(runs)))
	for _, r := range runs {
		b = binary.AppendUvarint(b, r)
	}
	return b
}

// appendValues writes a column's values in the shortest of three modes.
// A distribution's value is stored less the sum of its buckets (zero when
// it is their sum, as it is for the agent's distributions).
func appendValues(b []byte, rows []analytics.Row) []byte {
	vals := make([]int64, len(rows))
	for i, r := range rows {
		vals[i] = r.Value - bucketSum(r.Buckets)
	}
	var best []byte
	for mode := modeRaw; mode <= modeDoD; mode++ {
		enc := []byte{byte(mode)}
		var p1, p2 int64
		for _, v := range vals {
			switch mode {
			case modeRaw:
				enc = binary.AppendVarint(enc, v)
			case modeDelta:
				enc = binary.AppendVarint(enc, v-p1)
			case modeDoD:
				enc = binary.AppendVarint(enc, (v-p1)-(p1-p2))
			}
			p1, p2 = v, p1
		}
		if best == nil || len(enc) < len(best) {
			best = enc
		}
	}
	return append(b, best...)
}

func bucketSum(bs []analytics.Bucket) int64 {
	var s int64
	for _, k := range bs {
		s += k.Count
	}
	return s
}

func appendBuckets(b []byte, cols []*column, table []analytics.Bucket) []byte {
	pos := make(map[analytics.Bucket]int, len(table))
	for i, t := range table {
		pos[t] = i
	}
	place := func(k analytics.Bucket) int { k.Count = 0; return pos[k] }
	for _, c := range cols {
		for _, r := range c.rows {
			b = binary.AppendUvarint(b, uint64(len(r.Buckets)))
		}
	}
	for _, c := range cols {
		first := 0
		for _, r := range c.rows {
			for j, k := range r.Buckets {
				p := place(k)
				if j == 0 {
					b = binary.AppendVarint(b, int64(p-first))
					first = p
				} else {
					b = binary.AppendUvarint(b, uint64(p-place(r.Buckets[j-1])-1))
				}
			}
		}
	}
	for _, c := range cols {
		last := make([]int64, len(table))
		for _, r := range c.rows {
			for _, k := range r.Buckets {
				p := place(k)
				b = binary.AppendVarint(b, k.Count-last[p])
				last[p] = k.Count
			}
		}
	}
	return b
}

func decodeBody(start, step int64, body []byte) ([]analytics.Second, error) {
	r := &reader{b: body}
	n := r.count()
	ivs := make([]analytics.Second, n)
	var prev, delta int64
	for i := range ivs {
		off := int64(0)
		if i == 0 {
			off = int64(r.uvarint())
		} else {
			delta += r.varint()
			off = prev + delta
		}
		prev = off
		ivs[i].Time = time.Unix(start+off*step, 0).UTC()
	}
	var samples int64
	for i := range ivs {
		samples += r.varint()
		ivs[i].Samples = int(samples)
	}
	cols := make([]*column, r.count())
	for i := range cols {
		cols[i] = &column{key: r.key(), present: make([]bool, n)}
	}
	table := readTable(r)
	for _, c := range cols {
		readRuns(r, c.present)
	}
	for _, c := range cols {
		readValues(r, c)
	}
	if len(table) > 0 {
		readBuckets(r, cols, table)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCorrupt
	}
	for _, c := range cols {
		j := 0
		for i, p := range c.present {
			if p {
				ivs[i].Rows = append(ivs[i].Rows, c.rows[j])
				j++
			}
		}
	}
	return ivs, nil
}

func readTable(r *reader) []analytics.Bucket {
	table := make([]analytics.Bucket, r.count())
	var prev analytics.Bucket
	for i := range table {
		prev.Index += int32(r.varint())
		prev.Min += r.varint()
		prev.Max += r.varint()
		table[i] = prev
	}
	return table
}

func readRuns(r *reader, present []bool) {
	runs := r.count()
	i, cur := 0, false
	for range runs {
		n := r.uvarint()
		if n > uint64(len(present)-i) {
			r.err = errCorrupt
			return
		}
		for range n {
			present[i] = cur
			i++
		}
		cur = !cur
	}
	if i != len(present) {
		r.err = errCorrupt
	}
}

// readValues reads a column's values (the values less their buckets'
// sums, added back by readBuckets).
func readValues(r *reader, c *column) {
	np := 0
	for _, p := range c.present {
		if p {
			np++
		}
	}
	mode := r.byte()
	if mode > modeDoD {
		r.err = errCorrupt
		return
	}
	c.rows = make([]analytics.Row, np)
	var p1, p2 int64
	for i := range c.rows {
		d := r.varint()
		var v int64
		switch mode {
		case modeRaw:
			v = d
		case modeDelta:
			v = p1 + d
		case modeDoD:
			v = d + p1 + (p1 - p2)
		}
		p1, p2 = v, p1
		c.rows[i] = analytics.Row{Key: c.key, Value: v}
	}
}

func readBuckets(r *reader, cols []*column, table []analytics.Bucket) {
	for _, c := range cols {
		for i := range c.rows {
			if nb := r.count(); nb > 0 {
				c.rows[i].Buckets = make([]analytics.Bucket, nb)
			}
		}
	}
	pos := make([][]int, len(cols))
	for ci, c := range cols {
		first := 0
		for _, row := range c.rows {
			p := 0
			for j := range row.Buckets {
				if j == 0 {
					p = first + int(r.varint())
					first = p
				} else {
					p += 1 + int(r.uvarint())
				}
				if p < 0 || p >= len(table) {
					r.err = errCorrupt
					return
				}
				row.Buckets[j] = table[p]
				pos[ci] = append(pos[ci], p)
			}
		}
	}
	for ci, c := range cols {
		last := make([]int64, len(table))
		at := 0
		for i := range c.rows {
			for j := range c.rows[i].Buckets {
				p := pos[ci][at]
				at++
				c.rows[i].Buckets[j].Count = last[p] + r.varint()
				last[p] = c.rows[i].Buckets[j].Count
			}
			c.rows[i].Value += bucketSum(c.rows[i].Buckets)
		}
	}
}
