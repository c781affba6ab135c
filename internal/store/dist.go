package store

import (
	"math/bits"
	"slices"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Distributions in a version 2 chunk (docs/format/store.md): the buckets
// of every row, key after key (keys sorted, a key's rows in time order),
// are one stream of the binary range coder (rc.go). A count is noisy — the
// events of a second fall in a bucket by chance — so what can be
// predicted is its order of magnitude, from the same key's previous row
// (a latency distribution changes little from one second to the next)
// and from the buckets before it in the row. Each row codes:
//
//   - whether it has buckets (an LZMA probability by the previous row's);
//   - its first and last positions in the chunk's table, as differences
//     from the previous row's (zero?, sign, bit length in unary, the bits
//     below the leading one, the first adaptive);
//   - for each position between them, whether it has a bucket;
//   - for each bucket, its count c >= 1: its bit length n, coded from a
//     guess (the previous row's count's length there, else the bucket
//     before's: is it the guess, above or below, then how far in unary),
//     then the bits below the leading one, the first three modelled (two
//     from format 3: modelled, the third cost more than its bit), the
//     rest as they are. A count below 1 has length 0 and 64 raw bits.
//
// Every decision but the first two kinds is context mixing, as in lpaq:
// a few contexts (the previous row's count at the position, quantised or
// as a bit length; the bucket before's in this row; the position itself;
// how the bucket before changed since the previous row; how this row so
// far compares with the previous one) each select an adaptive probability
// in a hashed table; a small neural mixer, its weights chosen by the
// decision's kind, combines them in the logistic domain, and learns from
// each bit. All of it is integer arithmetic, so every machine decodes
// the same bits.
//
// The previous row of a key's first row is the last row of the key
// before it (another key's distribution is a better guess than none). The
// model starts afresh in each chunk. It is written once, for the encoder
// and the decoder alike: each decision goes through a bitCoder, which
// writes the bit it is given or returns the bit it reads.

// bitCoder codes one binary decision: code with an adaptive probability
// of its own (LZMA's), codeP with a probability given, raw with none.
// Encoding (e set), it writes the bit it is given and returns it;
// decoding (d set), it returns the bit it reads. (A struct with a branch,
// not an interface: the calls are direct, which decoding feels.)
type bitCoder struct {
	e *rcEncoder
	d *rcDecoder
}

func encBits(e *rcEncoder) bitCoder { return bitCoder{e: e} }
func decBits(d *rcDecoder) bitCoder { return bitCoder{d: d} }

func (c bitCoder) code(p *uint16, b uint32) uint32 {
	if c.d != nil {
		return c.d.bit(p)
	}
	c.e.bit(p, b)
	return b
}

func (c bitCoder) codeP(p1 uint32, b uint32) uint32 {
	if c.d != nil {
		return c.d.bitP(p1)
	}
	c.e.bitP(p1, b)
	return b
}

func (c bitCoder) raw(b uint32) uint32 {
	if c.d != nil {
		return c.d.direct()
	}
	c.e.direct(b)
	return b
}

// squash and stretch map between probabilities (4096ths) and their
// logits (256ths), in integers (lpaq1's tables), so that every machine
// computes the same bits.
var squashT = [33]int32{1, 2, 3, 6, 10, 16, 27, 45, 73, 120, 194, 310, 488, 747, 1101, 1546, 2047,
	2549, 2994, 3348, 3607, 3785, 3901, 3975, 4022, 4050, 4068, 4079, 4085, 4089, 4092, 4093, 4094}

func squash(d int32) int32 {
	if d > 2047 {
		return 4095
	}
	if d < -2047 {
		return 1
	}
	w := d & 127
	i := d>>7 + 16
	return (squashT[i]*(128-w) + squashT[i+1]*w + 64) >> 7
}

var stretchT = func() (t [4096]int16) {
	pi := int32(0)
	for x := int32(-2047); x <= 2047; x++ {
		v := squash(x)
		for i := pi; i <= v; i++ {
			t[i] = int16(x)
		}
		pi = v + 1
	}
	for i := pi; i < 4096; i++ {
		t[i] = 2047
	}
	return t
}()

// rateT[n] is 65536/(n+1.5): a context's probability moves by 1/(n+1.5)
// of its error at its nth use, then by 1/(rateLimit+1.5).
var rateT = func() (t [rateLimit + 1]int64) {
	for i := range t {
		t[i] = 65536 * 2 / int64(2*i+3)
	}
	return t
}()

const (
	half      = 1 << 15
	rateLimit = 250
	slotBits  = 16 // a chunk's contexts hash into 2^16 slots
	maxInputs = 8
	mixShift  = 16 // mixer weights are in 65536ths
	mixRate   = 3
	mixLR     = 11
	lenSteps  = 65 // unary steps of a count's bit length (0..64)
	topBits   = 3  // bits below a count's leading one that are modelled (format 2)
	topBitsV3 = 2  // from format 3: the third cost more modelled than as it is
	expFields = 2  // signed numbers: first position, last position
)

// distModel holds the probabilities of a chunk's distribution stream:
// the context slots (a probability of 1 in 65536ths, stored xor half so
// that a zeroed slot is a half, and a use count each), the mixers'
// weights, and LZMA probabilities for the rows' ranges.
type slot struct {
	p uint16 // a probability of 1, in 65536ths, xor half
	n uint16 // uses, up to rateLimit
}

type distModel struct {
	slot   [1 << slotBits]slot
	w      [][maxInputs]int32
	empty  [2]uint16
	sgn    [expFields][2]uint16 // zero?, negative?
	expo   [expFields][lenSteps]uint16
	mant   [expFields][lenSteps]uint16
	inputs int
	slots  [maxInputs]uint32
	st     [maxInputs]int32
}

// mixer weight sets: presence by its context, lengths by step, top bits by
// length.
const (
	wPres = 0
	wLen  = wPres + 16
	wTop  = wLen + 8*24
	wSets = wTop + lenSteps
)

func newDistModel() *distModel {
	m := &distModel{w: make([][maxInputs]int32, wSets)}
	for i := range m.w {
		for j := range m.w[i] {
			m.w[i][j] = 1 << mixShift * 3 / 10
		}
	}
	fill := func(ps []uint16) {
		for i := range ps {
			ps[i] = probInit
		}
	}
	fill(m.empty[:])
	for i := range expFields {
		fill(m.sgn[i][:])
		fill(m.expo[i][:])
		fill(m.mant[i][:])
	}
	return m
}

// ctx adds the context (kind, a, b, c) as an input of the next mixed
// decision.
func (m *distModel) ctx(kind, a, b, c int) {
	h := uint32(kind)*0x9E3779B1 ^ uint32(a)*0x85EBCA6B ^ uint32(b)*0xC2B2AE35 ^ uint32(c)*0x27D4EB2F
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 13
	m.slots[m.inputs] = h >> (32 - slotBits)
	m.inputs++
}

// mix codes bit y with the inputs' probabilities mixed by weight set
// sel, then trains the mixer and the inputs on the bit coded.
func (m *distModel) mix(bc bitCoder, sel int, y uint32) uint32 {
	w := &m.w[sel]
	n := min(m.inputs, maxInputs)
	var sl [maxInputs]*slot
	st := &m.st
	var dot int64
	for i := range n {
		s := &m.slot[m.slots[i]]
		sl[i] = s
		st[i] = int32(stretchT[(s.p^half)>>4])
		dot += int64(w[i]) * int64(st[i])
	}
	p := squashClamped[max(min(dot>>mixShift, 2047), -2047)+2047]
	b := bc.codeP(uint32(p), y)
	err := (int32(b)<<12 - p) * mixRate
	target := int64(b) << 16
	for i := range n {
		w[i] += (st[i]*err + 1<<(mixLR-1)) >> mixLR
		s := sl[i]
		pv := int64(s.p ^ half)
		pv += ((target - pv) * rateT[s.n]) >> 16
		s.p = uint16(min(max(pv, 32), 65535-32)) ^ half
		if s.n < rateLimit {
			s.n++
		}
	}
	m.inputs = 0
	return b
}

// squashClamped[d+2047] is squash(d) kept within 1..4095, for d in
// -2047..2047: the mixer's output probability, looked up.
var squashClamped = func() (t [4095]int32) {
	for d := int32(-2047); d <= 2047; d++ {
		t[d+2047] = min(max(squash(d), 1), 4095)
	}
	return t
}()

// distState is what the model knows of the key's past rows.
type distState struct {
	m      *distModel
	bc     bitCoder
	prev   []int64 // the previous row's counts by table position (0: none)
	lo, hi int     // the previous row's first and last positions
	empty  uint32  // whether the previous row had no bucket
	sumCur int64   // this row's counts so far
	sumPrv int64   // the previous row's at the same positions
	cur    []int64 // this row's counts by position (encoder and decoder)
	has    []bool  // this row's positions with a bucket
	buf    []analytics.Bucket
	top    int // the bits below a count's leading one that are modelled
}

func newDistState(bc bitCoder, table int, version byte) *distState {
	top := topBits
	if version >= chunkV3 {
		top = topBitsV3
	}
	return &distState{m: newDistModel(), bc: bc, prev: make([]int64, table),
		cur: make([]int64, table), has: make([]bool, table), hi: table - 1, top: top}
}

// signed codes a small signed number: zero?, negative?, then its
// magnitude's bit length in unary and the bits below the leading one (the
// first adaptive).
func (s *distState) signed(f int, v int64) int64 {
	bc, m := s.bc, s.m
	if bc.code(&m.sgn[f][0], b2u(v == 0)) == 1 {
		return 0
	}
	neg := bc.code(&m.sgn[f][1], b2u(v < 0))
	mag := uint64(v)
	if neg == 1 {
		mag = -mag
	}
	n := 0
	for n < lenSteps-1 && bc.code(&m.expo[f][n], b2u(n < bits.Len64(mag))) == 1 {
		n++
	}
	n = max(n, 1) // 0 only from a corrupt stream
	u := uint64(1)
	for i := n - 2; i >= 0; i-- {
		b := uint32(mag>>i) & 1
		if i == n-2 {
			b = bc.code(&m.mant[f][n], b)
		} else {
			b = bc.raw(b)
		}
		u = u<<1 | uint64(b)
	}
	if neg == 1 {
		return -int64(u)
	}
	return int64(u)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// quant is a count, coarsely: none, 1, 2-3, 4-15, 16-255, more.
func quant(c int64) int {
	switch {
	case c <= 0:
		return 0
	case c == 1:
		return 1
	case c < 4:
		return 2
	case c < 16:
		return 3
	case c < 256:
		return 4
	}
	return 5
}

// blen is a count's bit length: 0 for none.
func blen(c int64) int {
	if c <= 0 {
		return 0
	}
	return bits.Len64(uint64(c))
}

// Context kinds.
const (
	kPres = iota + 1
	kPresPos
	kPresNext
	kLen
	kLenPos
	kLenTrend
	kTop
	kTopLeft
	kLenInt
	kPresInt
)

// intensity compares this row so far with the previous row at the same
// positions: 0 to 8, 4 when level, 9 when either has nothing yet.
func (s *distState) intensity() int {
	if s.sumCur == 0 || s.sumPrv == 0 {
		return 9
	}
	return 4 + min(max(blen(s.sumCur)-blen(s.sumPrv), -4), 4)
}

// count codes the count c of position p: c >= 1 as its bit length n in
// unary then the bits below the leading one; anything else as length 0
// and 64 raw bits.
func (s *distState) count(p int, c int64) int64 {
	bc, m := s.bc, s.m
	n := 0
	if c >= 1 {
		n = bits.Len64(uint64(c))
	}
	pl := blen(s.prev[p])
	var left, prevLeft int64
	if p > 0 {
		left, prevLeft = s.cur[p-1], s.prev[p-1]
	}
	ll := blen(left)
	trend := 0 // how the position before changed since the previous row
	if left > 0 && prevLeft > 0 {
		trend = 8 + min(max(ll-blen(prevLeft), -3), 3)
	} else if left > 0 {
		trend = 1
	}
	// The length, from a guess: the previous row's length here, else
	// the bucket before's; is it the guess, above or below, then how far,
	// in unary.
	guess := pl
	if guess == 0 {
		guess = max(ll, 1)
	}
	it := s.intensity()
	step := func(st int, y bool) bool {
		m.ctx(kLen, st, pl, ll)
		m.ctx(kLenPos, st, p, pl)
		m.ctx(kLenTrend, st, pl, trend)
		m.ctx(kLenInt, st, pl, it)
		return m.mix(bc, wLen+min(st, 7)*24+min(pl, 23), b2u(y)) == 1
	}
	want := n // the encoder's; the decoder's is 0 and unused
	switch {
	case step(0, want == guess):
		n = guess
	case step(1, want > guess):
		n = guess + 1
		for n < lenSteps-1 && !step(2*(n-guess), want == n) {
			n++
		}
	default:
		n = guess - 1
		for n > 0 && !step(2*(guess-n)+1, want == n) {
			n--
		}
	}
	if n == 0 {
		var v uint64
		for i := 63; i >= 0; i-- {
			v = v<<1 | uint64(bc.raw(uint32(uint64(c)>>i)&1))
		}
		return int64(v)
	}
	// How the previous count compares: shorter, longer, or as long and
	// its bits below the leading one.
	rel := func(q int64) int {
		switch ql := blen(q); {
		case ql < n:
			return 0
		case ql > n:
			return 1
		}
		return 2 + int(uint64(q)>>max(n-1-topBits, 0))&(1<<topBits-1) // topBits in every format: a context, not a coded bit
	}
	rp, rl := rel(s.prev[p]), rel(left)
	u := uint64(1)
	for i := n - 2; i >= 0; i-- {
		b := uint32(uint64(c)>>i) & 1
		if j := n - 2 - i; j < s.top {
			m.ctx(kTop, n, int(u), rp)
			m.ctx(kTopLeft, n, int(u), rl)
			b = m.mix(bc, wTop+n, b)
		} else {
			b = bc.raw(b)
		}
		u = u<<1 | uint64(b)
	}
	return int64(u)
}

// row codes one row's buckets. Encoding, buckets are the row's, pos maps
// them to table positions; decoding, both are nil and the buckets are
// returned. table is the chunk's table. A structure the table cannot hold
// (only from a corrupt stream) returns ok false.
func (s *distState) row(buckets []analytics.Bucket, pos func(analytics.Bucket) int, table []analytics.Bucket) (out []analytics.Bucket, ok bool) {
	m, bc := s.m, s.bc
	enc := pos != nil
	t := len(table)
	if bc.code(&m.empty[s.empty], b2u(len(buckets) == 0)) == 1 {
		s.empty = 1
		return nil, true
	}
	var lo, hi int
	if enc {
		lo, hi = pos(buckets[0]), pos(buckets[len(buckets)-1])
		for _, k := range buckets {
			p := pos(k)
			s.has[p] = true
			s.cur[p] = k.Count
		}
	}
	lo = s.lo + int(s.signed(0, int64(lo-s.lo)))
	if lo < 0 || lo >= t {
		return nil, false
	}
	hi = s.hi + int(s.signed(1, int64(hi-s.hi)))
	if hi < lo || hi >= t {
		return nil, false
	}
	s.has[lo], s.has[hi] = true, true
	lastLen := 0 // the bit length of this row's last count
	for p := lo; p <= hi; p++ {
		if p != lo && p != hi {
			q := quant(s.prev[p])
			l1, l2 := b2u(s.has[p-1]), uint32(0)
			if p-2 >= lo {
				l2 = b2u(s.has[p-2])
			}
			next := 0
			if p+1 < t {
				next = quant(s.prev[p+1])
			}
			m.ctx(kPres, q, int(l1), int(l2))
			m.ctx(kPresPos, p, q, 0)
			m.ctx(kPresNext, next, lastLen, q)
			m.ctx(kPresPos, p, int(l1), 1)
			m.ctx(kPresInt, q, s.intensity(), int(l1))
			s.has[p] = m.mix(bc, wPres+q*2+int(l1), b2u(s.has[p])) == 1
		}
		s.sumPrv += max(s.prev[p], 0)
		if !s.has[p] {
			s.cur[p] = 0
			continue
		}
		c := s.count(p, s.cur[p])
		lastLen = min(blen(c), 20)
		s.sumCur += min(max(c, 0), 1<<40)
		if !enc {
			k := table[p]
			k.Count = c
			s.buf = append(s.buf, k)
		}
		s.cur[p] = c
	}
	if len(s.buf) > 0 {
		out = slices.Clone(s.buf)
		s.buf = s.buf[:0]
	}
	// This row becomes the previous one.
	copy(s.prev, s.cur)
	for p := range s.cur {
		s.has[p], s.cur[p] = false, 0
	}
	s.lo, s.hi, s.empty = lo, hi, 0
	s.sumCur, s.sumPrv = 0, 0
	return out, true
}

// appendDist codes the columns' buckets (version 2).
func appendDist(cols []*column, table []analytics.Bucket, version byte) []byte {
	pos := make(map[analytics.Bucket]int, len(table))
	for i, t := range table {
		pos[t] = i
	}
	place := func(k analytics.Bucket) int { k.Count = 0; return pos[k] }
	enc := newRCEncoder()
	s := newDistState(encBits(enc), len(table), version)
	for _, c := range cols {
		for _, r := range c.rows {
			s.row(r.Buckets, place, table)
		}
	}
	return enc.finish()
}

// readDist decodes the columns' buckets (version 2) and adds their sums
// to the rows' values. The stream is consumed whole (r.b is emptied); an
// overrun or an impossible structure is r.err.
func readDist(r *reader, cols []*column, table []analytics.Bucket, version byte) {
	dec := newRCDecoder(r.b)
	r.b = nil
	s := newDistState(decBits(dec), len(table), version)
	for _, c := range cols {
		for i := range c.rows {
			out, ok := s.row(nil, nil, table)
			if !ok || dec.overrun > 0 {
				r.err = errCorrupt
				return
			}
			c.rows[i].Buckets = out
			c.rows[i].Value += bucketSum(out)
		}
	}
}
