package store

import "math/bits"

// An adaptive binary range coder (the one LZMA uses: 11-bit probabilities
// that adapt by 1/32 of their error at each bit) codes the distributions'
// bucket counts, which are noisy small integers that byte-oriented
// compressors code poorly. Each count is written as its bit length, in
// unary, each step with a probability of its own that depends on the
// length of the previous count of the row (neighbouring buckets of a
// distribution have like counts), then the bits below its leading one,
// the first two adaptive, the rest as they are.

const (
	probBits  = 11
	probInit  = 1 << (probBits - 1)
	moveBits  = 4
	topValue  = 1 << 24
	maxLen    = 65 // bit lengths 1..64 of count+1, and 0 for a negative count
	lenCtxs   = 17 // the previous count's length, capped at 16
	mantCtxs  = maxLen * 4
	noPrevLen = 0
)

// countModel is the adaptive state shared by the encoder and decoder.
type countModel struct {
	lens [lenCtxs][maxLen]uint16
	mant [mantCtxs]uint16
}

func newCountModel() *countModel {
	m := &countModel{}
	for i := range m.lens {
		for j := range m.lens[i] {
			m.lens[i][j] = probInit
		}
	}
	for i := range m.mant {
		m.mant[i] = probInit
	}
	return m
}

type rcEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	out       []byte
	m         *countModel
	prevLen   int
}

func newRCEncoder() *rcEncoder {
	return &rcEncoder{rng: 0xFFFFFFFF, cacheSize: 1, m: newCountModel()}
}

func (e *rcEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		temp := e.cache
		for {
			e.out = append(e.out, temp+byte(e.low>>32))
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(uint32(e.low) >> 24)
	}
	e.cacheSize++
	e.low = uint64(uint32(e.low) << 8)
}

func (e *rcEncoder) bit(p *uint16, b uint32) {
	bound := (e.rng >> probBits) * uint32(*p)
	if b == 0 {
		e.rng = bound
		*p += (1<<probBits - *p) >> moveBits
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> moveBits
	}
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (e *rcEncoder) direct(b uint32) {
	e.rng >>= 1
	if b != 0 {
		e.low += uint64(e.rng)
	}
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

// startRow forgets the previous count: a row's first count has no
// neighbour.
func (e *rcEncoder) startRow() { e.prevLen = noPrevLen }

// count codes one count.
func (e *rcEncoder) count(v int64) {
	n, u := 0, uint64(0)
	if v >= 0 && v < 1<<63-1 {
		u = uint64(v) + 1
		n = bits.Len64(u)
	}
	ctx := &e.m.lens[min(e.prevLen, lenCtxs-1)]
	for i := 0; i < n; i++ {
		e.bit(&ctx[i], 1)
	}
	if n < maxLen-1 {
		e.bit(&ctx[n], 0)
	}
	e.prevLen = n
	if n == 0 { // negative (or huge): the 64 bits as they are
		for i := 63; i >= 0; i-- {
			e.direct(uint32(uint64(v)>>i) & 1)
		}
		return
	}
	for i := n - 2; i >= 0; i-- {
		b := uint32(u>>i) & 1
		if j := n - 2 - i; j < 2 {
			e.bit(&e.m.mant[n*4+j*2+int(u>>(i+1))&1], b)
		} else {
			e.direct(b)
		}
	}
}

func (e *rcEncoder) finish() []byte {
	for range 5 {
		e.shiftLow()
	}
	return e.out
}

type rcDecoder struct {
	code, rng uint32
	in        []byte
	m         *countModel
	prevLen   int
	overrun   int
}

func newRCDecoder(in []byte) *rcDecoder {
	d := &rcDecoder{rng: 0xFFFFFFFF, in: in, m: newCountModel()}
	for range 5 {
		d.code = d.code<<8 | uint32(d.next())
	}
	return d
}

// next returns the next byte; past the end, zeros, counted (a corrupt
// stream is caught by the chunk's checksum; this only keeps decoding
// bounded).
func (d *rcDecoder) next() byte {
	if len(d.in) == 0 {
		d.overrun++
		return 0
	}
	b := d.in[0]
	d.in = d.in[1:]
	return b
}

func (d *rcDecoder) bit(p *uint16) uint32 {
	bound := (d.rng >> probBits) * uint32(*p)
	var b uint32
	if d.code < bound {
		d.rng = bound
		*p += (1<<probBits - *p) >> moveBits
	} else {
		d.code -= bound
		d.rng -= bound
		*p -= *p >> moveBits
		b = 1
	}
	for d.rng < topValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}

func (d *rcDecoder) direct() uint32 {
	d.rng >>= 1
	var b uint32
	if d.code >= d.rng {
		d.code -= d.rng
		b = 1
	}
	for d.rng < topValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}

func (d *rcDecoder) startRow() { d.prevLen = noPrevLen }

func (d *rcDecoder) count() int64 {
	ctx := &d.m.lens[min(d.prevLen, lenCtxs-1)]
	n := 0
	for n < maxLen-1 && d.bit(&ctx[n]) == 1 {
		n++
	}
	d.prevLen = n
	if n == 0 {
		var v uint64
		for range 64 {
			v = v<<1 | uint64(d.direct())
		}
		return int64(v)
	}
	u := uint64(1)
	for i := n - 2; i >= 0; i-- {
		var b uint32
		if j := n - 2 - i; j < 2 {
			b = d.bit(&d.m.mant[n*4+j*2+int(u&1)])
		} else {
			b = d.direct()
		}
		u = u<<1 | uint64(b)
	}
	return int64(u - 1)
}

// bitP codes b with p1, the probability (in 4096ths, 1..4095) that b is
// 1, given by a model outside the coder.
func (e *rcEncoder) bitP(p1 uint32, b uint32) {
	bound := (e.rng >> 12) * (4096 - p1)
	if b == 0 {
		e.rng = bound
	} else {
		e.low += uint64(bound)
		e.rng -= bound
	}
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (d *rcDecoder) bitP(p1 uint32) uint32 {
	bound := (d.rng >> 12) * (4096 - p1)
	var b uint32
	if d.code < bound {
		d.rng = bound
	} else {
		d.code -= bound
		d.rng -= bound
		b = 1
	}
	for d.rng < topValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}
