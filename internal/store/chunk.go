package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"time"

	"github.com/klauspost/compress/fse"
	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// A chunk holds one dataset's intervals of one tier in one window, in
// columns (docs/format/store.md):
//
//	byte version (2; 1 still read) | crc32c(rest) uint32 LE |
//	uvarint sections | per section: byte codec (0 raw, 1 zstd, 2 huff0,
//	3 FSE), uvarint raw length, uvarint length, bytes
//
// The sections, before compression:
//
//	meta     uvarint n; n offsets from the window in steps, delta-of-delta;
//	         n × Samples, varint delta from the previous interval's;
//	         uvarint k; k keys, sorted; uvarint t; t buckets (index, min,
//	         max), sorted, each a varint delta from the previous;
//	         k × presence (uvarint runs; runs alternately absent and
//	         present, starting absent)
//	values   k × (byte mode; format 2: uvarint g, the values' greatest
//	         common divisor, 0 when all are 0 and then nothing follows;
//	         one varint per present interval: the value (over g), its
//	         delta, or its delta-of-delta, whichever is shortest; a
//	         distribution's value less the sum of its buckets)
//	format 2, if t > 0: the buckets of every row, range coded with
//	         context mixing (dist.go)
//	format 1, if t > 0: sizes, positions and counts (appendBuckets; the
//	         counts range coded, rc.go)
const (
	chunkV1      = 1 // buckets in three sections: sizes, positions, counts
	chunkV2      = 2 // buckets in one context-modelled stream (dist.go)
	chunkV3      = 3 // values varint or range coded (values.go), whichever is shorter
	chunkVersion = chunkV3
	codecRaw     = 0
	codecZstd    = 1
	codecHuff    = 2
	codecFSE     = 3
)

// The body's sections, each compressed on its own: version 1 has five,
// version 2 three (its distributions are secDist).
const (
	secMeta = iota
	secValues
	secSizes
	secPositions
	secCounts
	numSections

	secDist       = secSizes
	numSectionsV2 = secDist + 1
)

// Value column modes, and from format 2 two flags: the values' greatest
// common divisor follows (when not 1), or they are all zero.
const (
	modeRaw = iota
	modeDelta
	modeDoD

	modeGCD  = 4
	modeZero = 8
)

// codec compresses chunk bodies; one per store.
type codec struct {
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	version byte // the version of the chunks it writes
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
	return &codec{enc: enc, dec: dec, version: chunkVersion}, nil
}

func (c *codec) close() {
	c.enc.Close()
	c.dec.Close()
}

// encodeChunk encodes intervals (sorted, canonical rows, all in the window
// starting at start, on multiples of step seconds).
func (c *codec) encodeChunk(start, step int64, ivs []analytics.Second) []byte {
	out := make([]byte, 5, 256)
	out[0] = c.version
	secs, alt := encodeBody(c.version, start, step, ivs)
	out = binary.AppendUvarint(out, uint64(len(secs)))
	for i, sec := range secs {
		if i == secValues && alt != nil {
			// The range coded values take about 2.5 times the CPU to
			// decode: they are kept when they save a tenth at least
			// (a single noisy counter's 11-17%), and only for a few
			// keys (alt is nil past rcMaxKeys): a breakdown's chunks are
			// what reads scan in bulk (a week of minutes of 50 keys),
			// and save 6-15%.
			a, b := c.appendSection(nil, sec), c.appendSection(nil, alt)
			if len(b) <= len(a)-len(a)/10 {
				a = b
			}
			out = append(out, a...)
			continue
		}
		out = c.appendSection(out, sec)
	}
	binary.LittleEndian.PutUint32(out[1:], crc32.Checksum(out[5:], castagnoli))
	return out
}

// appendSection appends a section compressed by whichever codec makes it
// shortest: codec byte, uvarint raw length, uvarint length, bytes.
func (c *codec) appendSection(out, sec []byte) []byte {
	codecID, payload := byte(codecRaw), sec
	try := func(id byte, enc []byte, err error) {
		if err == nil && len(enc) < len(payload) {
			codecID, payload = id, enc
		}
	}
	try(codecZstd, c.enc.EncodeAll(sec, nil), nil)
	if len(sec) <= entropyMax {
		enc, _, err := huff0.Compress1X(sec, &huff0.Scratch{})
		try(codecHuff, bytes.Clone(enc), err)
		enc, err = fse.Compress(sec, &fse.Scratch{})
		try(codecFSE, bytes.Clone(enc), err)
	}
	out = append(out, codecID)
	out = binary.AppendUvarint(out, uint64(len(sec)))
	out = binary.AppendUvarint(out, uint64(len(payload)))
	return append(out, payload...)
}

// entropyMax bounds the sections the entropy coders take (their block
// size).
const entropyMax = 64 << 10

// decodeChunk checks and decodes a chunk; a bad checksum or structure is
// errCorrupt.
func (c *codec) decodeChunk(start, step int64, b []byte) ([]analytics.Second, error) {
	if len(b) < 6 || b[0] < chunkV1 || b[0] > chunkV3 || binary.LittleEndian.Uint32(b[1:]) != crc32.Checksum(b[5:], castagnoli) {
		return nil, errCorrupt
	}
	version := b[0]
	r := &reader{b: b[5:]}
	n := r.count()
	secs := make([][]byte, n)
	for i := range secs {
		id := r.byte()
		raw := r.uvarint()
		payload := r.bytes(r.count())
		if r.err != nil || raw > 1<<30 {
			return nil, errCorrupt
		}
		sec, err := c.decodeSection(id, int(raw), payload)
		if err != nil || len(sec) != int(raw) {
			return nil, errCorrupt
		}
		secs[i] = sec
	}
	if len(r.b) != 0 || version == chunkV1 && len(secs) != numSections || version >= chunkV2 && len(secs) != numSectionsV2 {
		return nil, errCorrupt
	}
	return decodeBody(version, start, step, secs)
}

func (c *codec) decodeSection(id byte, raw int, payload []byte) ([]byte, error) {
	switch id {
	case codecRaw:
		return payload, nil
	case codecZstd:
		return c.dec.DecodeAll(payload, make([]byte, 0, raw))
	case codecHuff:
		if raw > entropyMax {
			return nil, errCorrupt
		}
		s, rest, err := huff0.ReadTable(payload, &huff0.Scratch{MaxDecodedSize: raw})
		if err != nil {
			return nil, err
		}
		out, err := s.Decompress1X(rest)
		return bytes.Clone(out), err
	case codecFSE:
		if raw > entropyMax {
			return nil, errCorrupt
		}
		out, err := fse.Decompress(payload, &fse.Scratch{DecompressLimit: raw})
		return bytes.Clone(out), err
	}
	return nil, errCorrupt
}

// column is a key's data across a chunk's intervals.
type column struct {
	key     []string
	present []bool
	rows    []analytics.Row // one per present interval
}

// encodeBody encodes intervals into the body's sections; from version 3,
// with a second values section (range coded; the first is varints), of
// which the chunk keeps the shorter once compressed.
func encodeBody(version byte, start, step int64, ivs []analytics.Second) (secs [][]byte, alt []byte) {
	secs = make([][]byte, numSections)
	if version >= chunkV2 {
		secs = secs[:numSectionsV2]
	}
	b := binary.AppendUvarint(nil, uint64(len(ivs)))
	if version >= chunkV3 {
		b = appendTimeRuns(b, start, step, ivs)
	} else {
		b = appendTimes(b, start, step, ivs)
	}
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
		b = binary.AppendVarint(b, int64(t.Max-prev.Max))
		prev = t
	}
	for _, c := range cols {
		b = appendRuns(b, c.present)
	}
	secs[secMeta] = b
	if version >= chunkV3 {
		secs[secValues] = []byte{valuesVarint}
		if len(cols) <= rcMaxKeys {
			alt = appendValuesRC(nil, cols)
		}
	}
	for _, c := range cols {
		secs[secValues] = appendValues(secs[secValues], c.rows, version)
	}
	switch {
	case len(table) == 0:
	case version == chunkV1:
		appendBuckets(secs, cols, table)
	default:
		secs[secDist] = appendDist(cols, table, version)
	}
	return secs, alt
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
// it is their sum, as it is for the agent's distributions). From version
// 2, values are written divided by their greatest common divisor g, given
// after the mode byte when it is not 1 (flag modeGCD); when they are all
// zero the mode byte says so (flag modeZero) and nothing follows: bytes
// counted by the sector or the page lose their zero bits.
func appendValues(b []byte, rows []analytics.Row, version byte) []byte {
	vals := make([]int64, len(rows))
	for i, r := range rows {
		vals[i] = r.Value - bucketSum(r.Buckets)
	}
	g := uint64(1)
	if version >= chunkV2 {
		g = 0
		for _, v := range vals {
			g = gcd(g, absU(v))
		}
		if g > math.MaxInt64 { // only MinInt64 and 0: left as they are
			g = 1
		}
		if g > 1 {
			for i := range vals {
				vals[i] /= int64(g)
			}
		}
	}
	if version >= chunkV2 && g == 0 {
		return append(b, modeRaw|modeZero)
	}
	var best []byte
	for mode := modeRaw; mode <= modeDoD; mode++ {
		enc := []byte{byte(mode)}
		if version >= chunkV2 && g != 1 {
			enc[0] |= modeGCD
			enc = binary.AppendUvarint(enc, g)
		}
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

// absU is |v| (MinInt64's too).
func absU(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func bucketSum(bs []analytics.Bucket) int64 {
	var s int64
	for _, k := range bs {
		s += k.Count
	}
	return s
}

// appendBuckets writes the rows' buckets. A row whose buckets are all
// nonzero and fill most of their range is dense: its first position and
// span, then a count for every position of the span (0 where it has no
// bucket); another lists its positions. The counts are range coded
// (rc.go).
func appendBuckets(secs [][]byte, cols []*column, table []analytics.Bucket) {
	pos := make(map[analytics.Bucket]int, len(table))
	for i, t := range table {
		pos[t] = i
	}
	place := func(k analytics.Bucket) int { k.Count = 0; return pos[k] }
	enc := newRCEncoder()
	count := enc.count
	for _, c := range cols {
		first := 0
		for _, r := range c.rows {
			enc.startRow()
			nb := len(r.Buckets)
			if nb == 0 {
				secs[secSizes] = append(secs[secSizes], 0)
				continue
			}
			lo, hi := place(r.Buckets[0]), place(r.Buckets[nb-1])
			secs[secPositions] = binary.AppendVarint(secs[secPositions], int64(lo-first))
			first = lo
			if span := hi - lo + 1; dense(r.Buckets, span) {
				secs[secSizes] = binary.AppendUvarint(secs[secSizes], uint64(span)<<1|1)
				j := 0
				for p := lo; p <= hi; p++ {
					if place(r.Buckets[j]) == p {
						count(r.Buckets[j].Count)
						j++
					} else {
						count(0)
					}
				}
				continue
			}
			secs[secSizes] = binary.AppendUvarint(secs[secSizes], uint64(nb)<<1)
			for j, k := range r.Buckets {
				if j > 0 {
					secs[secPositions] = binary.AppendUvarint(secs[secPositions], uint64(place(k)-place(r.Buckets[j-1])-1))
				}
				count(k.Count)
			}
		}
	}
	secs[secCounts] = enc.finish()
}

// dense says whether a row's buckets are better written as a span: all
// nonzero (a zero count in a span means no bucket), filling most of it.
func dense(bs []analytics.Bucket, span int) bool {
	for _, k := range bs {
		if k.Count == 0 {
			return false
		}
	}
	return span <= 2*len(bs)+2
}

func decodeBody(version byte, start, step int64, secs [][]byte) ([]analytics.Second, error) {
	r := &reader{b: secs[secMeta]}
	var ivs []analytics.Second
	if version >= chunkV3 {
		ivs = readTimeRuns(r, start, step)
	} else {
		ivs = readTimes(r, start, step)
	}
	n := len(ivs)
	nk := r.count()
	if n*nk > maxCells {
		return nil, errCorrupt
	}
	cols := make([]*column, nk)
	for i := range cols {
		cols[i] = &column{key: r.key(), present: make([]bool, n)}
	}
	table := readTable(r)
	for _, c := range cols {
		readRuns(r, c.present)
	}
	vr := &reader{b: secs[secValues]}
	kind := byte(valuesVarint)
	if version >= chunkV3 {
		kind = vr.byte()
	}
	switch kind {
	case valuesVarint:
		for _, c := range cols {
			readValues(vr, c, version)
		}
	case valuesRC:
		readValuesRC(vr, cols)
	default:
		return nil, errCorrupt
	}
	if vr.err != nil {
		return nil, errCorrupt
	}
	readers := []*reader{r, vr}
	switch version {
	case chunkV1:
		br := [numSections]*reader{secSizes: {b: secs[secSizes]}, secPositions: {b: secs[secPositions]},
			secCounts: {b: secs[secCounts]}}
		if len(table) > 0 {
			readBuckets(br, cols, table)
		}
		readers = append(readers, br[secSizes], br[secPositions], br[secCounts])
	default:
		dr := &reader{b: secs[secDist]}
		if len(table) > 0 {
			readDist(dr, cols, table, version)
		}
		readers = append(readers, dr)
	}
	for _, x := range readers {
		if x.err != nil || len(x.b) != 0 {
			return nil, errCorrupt
		}
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

// readTimes reads the intervals' times and Samples (formats 1 and 2).
func readTimes(r *reader, start, step int64) []analytics.Second {
	ivs := make([]analytics.Second, r.count())
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
	return ivs
}

// rcMaxKeys is the most keys a chunk may have for its values to be range
// coded (format 3).
const rcMaxKeys = 8

// Bounds of a chunk's structure, so that a corrupt chunk cannot ask for a
// large allocation: intervals (a window has 1,800 at the most), and
// intervals times keys.
const (
	maxIntervals = 1 << 16
	maxCells     = 1 << 27
)

// appendTimeRuns writes the intervals' times and Samples as runs (format
// 3): the first interval's offset from the window in steps; then runs of
// equal gaps between intervals (uvarint gap, uvarint run length) until
// every interval is placed; then runs of equal Samples (varint Samples,
// uvarint run length). Consecutive seconds of one sample each, as most
// chunks hold, take a few bytes.
func appendTimeRuns(b []byte, start, step int64, ivs []analytics.Second) []byte {
	if len(ivs) == 0 {
		return b
	}
	offs := make([]uint64, len(ivs))
	for i, iv := range ivs {
		offs[i] = uint64((iv.Time.Unix() - start) / step)
	}
	b = binary.AppendUvarint(b, offs[0])
	for i := 1; i < len(offs); {
		gap, j := offs[i]-offs[i-1], i+1
		for j < len(offs) && offs[j]-offs[j-1] == gap {
			j++
		}
		b = binary.AppendUvarint(b, gap)
		b = binary.AppendUvarint(b, uint64(j-i))
		i = j
	}
	for i := 0; i < len(ivs); {
		j := i + 1
		for j < len(ivs) && ivs[j].Samples == ivs[i].Samples {
			j++
		}
		b = binary.AppendVarint(b, int64(ivs[i].Samples))
		b = binary.AppendUvarint(b, uint64(j-i))
		i = j
	}
	return b
}

// readTimeRuns reads what appendTimeRuns wrote, after the count.
func readTimeRuns(r *reader, start, step int64) []analytics.Second {
	n := r.uvarint()
	if n > maxIntervals {
		r.err = errCorrupt
		return nil
	}
	ivs := make([]analytics.Second, n)
	if n == 0 {
		return ivs
	}
	off := r.uvarint()
	ivs[0].Time = time.Unix(start+int64(off)*step, 0).UTC()
	for i := 1; i < len(ivs) && r.err == nil; {
		gap, run := r.uvarint(), r.uvarint()
		if run == 0 || run > uint64(len(ivs)-i) || gap == 0 || gap > maxIntervals {
			r.err = errCorrupt
			break
		}
		for range run {
			off += gap
			ivs[i].Time = time.Unix(start+int64(off)*step, 0).UTC()
			i++
		}
	}
	for i := 0; i < len(ivs) && r.err == nil; {
		samples, run := r.varint(), r.uvarint()
		if run == 0 || run > uint64(len(ivs)-i) || samples != int64(int(samples)) {
			r.err = errCorrupt
			break
		}
		for range run {
			ivs[i].Samples = int(samples)
			i++
		}
	}
	return ivs
}

func readTable(r *reader) []analytics.Bucket {
	table := make([]analytics.Bucket, r.count())
	var prev analytics.Bucket
	for i := range table {
		prev.Index += int32(r.varint())
		prev.Min += r.varint()
		prev.Max += analytics.Bound(r.varint())
		table[i] = prev
		table[i].Max = analytics.Bound(analytics.LegacyMax(prev.Min, int64(prev.Max))) // written when 0 ended the open bucket
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
// sums, added back by readBuckets and readDist).
func readValues(r *reader, c *column, version byte) {
	np := 0
	for _, p := range c.present {
		if p {
			np++
		}
	}
	mode := r.byte()
	g := uint64(1)
	switch {
	case version >= chunkV2 && mode&modeZero != 0:
		g, mode = 0, mode&^modeZero
	case version >= chunkV2 && mode&modeGCD != 0:
		mode &^= modeGCD
		if g = r.uvarint(); g < 2 || g > math.MaxInt64 {
			r.err = errCorrupt
			return
		}
	}
	if mode > modeDoD {
		r.err = errCorrupt
		return
	}
	c.rows = make([]analytics.Row, np)
	var p1, p2 int64
	for i := range c.rows {
		if g == 0 {
			c.rows[i] = analytics.Row{Key: c.key}
			continue
		}
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
		c.rows[i] = analytics.Row{Key: c.key, Value: v * int64(g)}
	}
}

func readBuckets(br [numSections]*reader, cols []*column, table []analytics.Bucket) {
	sizes, positions := br[secSizes], br[secPositions]
	dec := newRCDecoder(br[secCounts].b)
	br[secCounts].b = nil
	count := dec.count
	defer func() {
		if dec.overrun > 0 {
			positions.err = errCorrupt
		}
	}()
	for _, c := range cols {
		first := 0
		for i := range c.rows {
			dec.startRow()
			size := sizes.uvarint()
			n := size >> 1
			if n > uint64(len(table)) {
				sizes.err = errCorrupt
				return
			}
			if n == 0 {
				continue
			}
			row := &c.rows[i]
			p := first + int(positions.varint())
			first = p
			if p < 0 || p+int(n) > len(table) {
				positions.err = errCorrupt
				return
			}
			if size&1 == 1 {
				for q := p; q < p+int(n); q++ {
					if v := count(); v != 0 {
						k := table[q]
						k.Count = v
						row.Buckets = append(row.Buckets, k)
					}
				}
			} else {
				row.Buckets = make([]analytics.Bucket, n)
				for j := range row.Buckets {
					if j > 0 {
						p += 1 + int(positions.uvarint())
					}
					if p >= len(table) {
						positions.err = errCorrupt
						return
					}
					row.Buckets[j] = table[p]
					row.Buckets[j].Count = count()
				}
			}
			row.Value += bucketSum(row.Buckets)
		}
	}
}
