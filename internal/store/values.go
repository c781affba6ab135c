package store

import (
	"encoding/binary"
	"math/bits"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Values in a version 3 chunk (docs/format/store.md). The values section
// starts with a byte saying how its columns are written: range coded when
// the chunk has at most rcMaxKeys keys and that is a tenth shorter at
// least once compressed (it decodes at about 2.5 times the CPU), else as
// varints:
//
//   - valuesVarint: as in format 2 (appendValues: per column a mode
//     byte, the divisor, one varint per value), the section then
//     compressed by zstd, Huffman or FSE;
//   - valuesRC: per column a mode byte (raw or delta, with the flags
//     modeGCD and modeZero) and the divisor when modeGCD says so; then one
//     stream of the binary range coder (rc.go) holding every column's
//     numbers (values over the divisor, or their differences from the
//     previous), column after column.
//
// A number x is coded as: zero?; negative?; its bit length n (from a
// guess, the previous number's length: equal?, then above or below, then
// how far in unary); the bits below its leading one, the first three
// modelled, the rest as they are. Each decision has an adaptive
// probability of its own (a 16-bit probability and a use count setting
// its rate, as the distributions' contexts) chosen by a small context:
// the previous number's length and sign, how the length moved before
// (down, level, up), and for the bits below the leading one the bits
// above them and the previous number's at the same place. A noisy
// counter's value is its order of magnitude and a few significant bits
// (the rest is noise, and costs its bits whatever the coder); this codes
// the order of magnitude from the last one, where a varint pays whole
// bytes and zstd finds no repeats. The model is shared by the chunk's
// columns (a breakdown's keys are alike) and starts afresh in each chunk.
const (
	valuesVarint = 0
	valuesRC     = 1
)

// Context slots of the numbers' model.
const (
	numLenCap  = 24 // bit lengths above this share a context
	numZero    = 0
	numSign    = numZero + numLenCap + 1
	numLen     = numSign + 3*(numLenCap+1)
	numLenStep = 16
	numTop     = numLen + numLenStep*(numLenCap+1)
	numSlots   = numTop + 65*8
	avgShift   = 4 // the running mean of the lengths moves by 1/16 of the difference
)

// numModel holds the probabilities of a chunk's numbers (stored xor half,
// so that a zeroed slot is a half) and their use counts.
type numModel struct {
	p [numSlots]uint16
	n [numSlots]uint8
}

// bit codes y with the probability of slot s, then adapts it.
func (m *numModel) bit(bc bitCoder, s int, y uint32) uint32 {
	pv := int64(m.p[s] ^ half)
	b := bc.codeP(uint32(min(max(pv>>4, 1), 4095)), y)
	n := m.n[s]
	pv += ((int64(b)<<16 - pv) * rateT[n]) >> 16
	m.p[s] = uint16(min(max(pv, 32), 65535-32)) ^ half
	if n < rateLimit {
		m.n[s] = n + 1
	}
	return b
}

// numState is what the model knows of the column's past numbers.
type numState struct {
	m        *numModel
	bc       bitCoder
	prevLen  int // the previous number's bit length (0: zero)
	prevSign int // 0 positive, 1 negative, 2 zero
	avg      int // the running mean of the nonzero numbers' lengths, in 256ths (0: none yet)
}

func (s *numState) reset() {
	s.prevLen, s.prevSign, s.avg = 0, 2, 0
}

// num codes x (encoding; decoding, x is ignored and the number returned).
func (s *numState) num(x int64) int64 {
	m, bc := s.m, s.bc
	pl := min(s.prevLen, numLenCap)
	if m.bit(bc, numZero+pl, b2u(x == 0)) == 1 {
		s.step(0)
		return 0
	}
	neg := m.bit(bc, numSign+s.prevSign*(numLenCap+1)+pl, b2u(x < 0))
	mag := absU(x)
	want := bits.Len64(mag)
	// The length, from a guess: the running mean of the lengths (a
	// noisy counter's order of magnitude wanders slowly; the previous
	// length alone is as noisy as the number).
	guess := max((s.avg+128)>>8, 1)
	g := min(guess, numLenCap)
	step := func(st int, y bool) bool {
		return m.bit(bc, numLen+min(st, numLenStep-1)*(numLenCap+1)+g, b2u(y)) == 1
	}
	var n int
	switch {
	case step(0, want == guess):
		n = guess
	case step(1, want > guess):
		n = guess + 1
		for n < 64 && !step(2*(n-guess), want == n) {
			n++
		}
	default:
		n = guess - 1
		for n > 1 && !step(2*(guess-n)+1, want == n) {
			n--
		}
	}
	n = max(n, 1) // 0 only from a corrupt stream
	u := uint64(1)
	for i := n - 2; i >= 0; i-- {
		b := uint32(mag>>i) & 1
		if j := n - 2 - i; j < topBits {
			b = m.bit(bc, numTop+n*8+int(u&7), b)
		} else {
			b = bc.raw(b)
		}
		u = u<<1 | uint64(b)
	}
	v := int64(u)
	if neg == 1 {
		v = -v
	}
	s.step(v)
	return v
}

// step makes v the previous number.
func (s *numState) step(v int64) {
	l := bits.Len64(absU(v))
	s.prevLen = l
	switch {
	case v < 0:
		s.prevSign = 1
	case v == 0:
		s.prevSign = 2
	default:
		s.prevSign = 0
	}
	switch {
	case l == 0:
	case s.avg == 0:
		s.avg = l << 8
	default:
		s.avg += (l<<8 - s.avg) >> avgShift
	}
}

// columnNumbers are a column's values less their buckets' sums, over
// their greatest common divisor, and the header that says how they are
// written: the mode byte (modeRaw or modeDelta, with modeGCD or
// modeZero) and the divisor. The numbers are the values or their
// differences, whichever have fewer bits in all.
func columnNumbers(rows []analytics.Row) (header []byte, nums []int64) {
	vals := make([]int64, len(rows))
	g := uint64(0)
	for i, r := range rows {
		vals[i] = r.Value - bucketSum(r.Buckets)
		g = gcd(g, absU(vals[i]))
	}
	switch {
	case g == 0:
		return []byte{modeRaw | modeZero}, nil
	case g > 1<<63-1: // only MinInt64 and 0: left as they are
		g = 1
	}
	if g > 1 {
		for i := range vals {
			vals[i] /= int64(g)
		}
	}
	var rawBits, deltaBits int
	var prev int64
	for _, v := range vals {
		rawBits += bits.Len64(absU(v))
		deltaBits += bits.Len64(absU(v - prev))
		prev = v
	}
	mode := byte(modeRaw)
	if deltaBits < rawBits {
		mode = modeDelta
		prev = 0
		for i, v := range vals {
			vals[i], prev = v-prev, v
		}
	}
	if g != 1 {
		return binary.AppendUvarint([]byte{mode | modeGCD}, g), vals
	}
	return []byte{mode}, vals
}

// appendValuesRC writes the columns' values range coded (valuesRC).
func appendValuesRC(b []byte, cols []*column) []byte {
	b = append(b, valuesRC)
	all := make([][]int64, len(cols))
	for i, c := range cols {
		var h []byte
		h, all[i] = columnNumbers(c.rows)
		b = append(b, h...)
	}
	enc := newRCEncoder()
	s := &numState{m: &numModel{}, bc: encBits(enc)}
	for _, nums := range all {
		s.reset()
		for _, x := range nums {
			s.num(x)
		}
	}
	return append(b, enc.finish()...)
}

// readValuesRC reads the columns' values (valuesRC, after its byte): the
// headers, then the stream, which it consumes whole.
func readValuesRC(r *reader, cols []*column) {
	type hdr struct {
		mode byte
		g    uint64
	}
	hs := make([]hdr, len(cols))
	for i := range hs {
		h := &hs[i]
		h.mode, h.g = r.byte(), 1
		switch {
		case h.mode&modeZero != 0:
			h.g, h.mode = 0, h.mode&^modeZero
		case h.mode&modeGCD != 0:
			h.mode &^= modeGCD
			if h.g = r.uvarint(); h.g < 2 || h.g > 1<<63-1 {
				r.err = errCorrupt
			}
		}
		if h.mode > modeDelta {
			r.err = errCorrupt
		}
		if r.err != nil {
			return
		}
	}
	dec := newRCDecoder(r.b)
	r.b = nil
	s := &numState{m: &numModel{}, bc: decBits(dec)}
	for i, c := range cols {
		np := 0
		for _, p := range c.present {
			if p {
				np++
			}
		}
		c.rows = make([]analytics.Row, np)
		h := hs[i]
		s.reset()
		var v int64
		for j := range c.rows {
			c.rows[j].Key = c.key
			if h.g == 0 {
				continue
			}
			x := s.num(0)
			if h.mode == modeDelta {
				v += x
			} else {
				v = x
			}
			c.rows[j].Value = v * int64(h.g)
			if dec.overrun > 0 {
				r.err = errCorrupt
				return
			}
		}
	}
}
