package format

// Plots of quantize(), lquantize() and llquantize() values, whose bucket
// layouts are package value's (value.QuantizeBucket, value.LquantizeLayout,
// value.LlquantizeLayout).
//
// Plots are dt_print_quantize, dt_print_lquantize, dt_print_llquantize and
// dt_print_quantline in libdtrace/common/dt_consume.c.

import (
	"fmt"
	"strconv"

	"github.com/sonde-trace/sonde/internal/value"
)

// bucket returns data[i], or 0 beyond the end.
func bucket(data []int64, i int) int64 {
	if i >= 0 && i < len(data) {
		return data[i]
	}
	return 0
}

// plot accumulates the rows of a distribution: dt_print_quantline needs
// the total and the signs of all displayed rows before printing any.
type plot struct {
	labels []string
	counts []int64
}

func (p *plot) row(label string, count int64) {
	p.labels = append(p.labels, label)
	p.counts = append(p.counts, count)
}

// write prints the header (dt_print_quanthdr, with its leading newline)
// and the rows: "%16s " of the label, then dt_print_quantline.
func (p *plot) write(b []byte, normal uint64) []byte {
	var positives, negatives bool
	total := ldZero()
	for _, c := range p.counts {
		positives = positives || c > 0
		negatives = negatives || c < 0
		total = total.add(ldInt(c).abs()) // dt_quantize_total without aggzoom
	}
	b = append(b, "\n           value  ------------- Distribution ------------- count    \n"...)
	for i, l := range p.labels {
		b = fill(b, cspec{width: 16, prec: -1}, l)
		b = append(b, ' ')
		b = quantline(b, p.counts[i], normal, total, positives, negatives)
	}
	return b
}

const (
	ats    = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
	spaces = "                                        "
)

// quantline is dt_print_quantline: a bar of up to 40 '@' scaled to the sum
// of the absolute counts of the displayed rows, rounded to nearest, then
// the count left-justified in 9 columns. With negative counts the bar grows
// left of the '|'; with both signs each side gets 20 columns.
func quantline(b []byte, val int64, normal uint64, total ld, positives, negatives bool) []byte {
	depth := func(length int64) int {
		if total.isZero() {
			return 0
		}
		f := ldInt(val).abs().mul(ldInt(length)).quo(total)
		d := int(f.add(ldHalf).trunc())
		if d > int(length) {
			d = int(length)
		}
		return d
	}
	count := func(b []byte) []byte {
		b = append(b, ' ')
		return fill(b, cspec{left: true, width: 9, prec: -1}, strconv.FormatInt(normalize(val, normal), 10))
	}
	if !negatives {
		d := 0
		if positives {
			d = depth(40)
		}
		b = append(b, '|')
		b = append(b, ats[:d]...)
		b = append(b, spaces[d:]...)
		return append(count(b), '\n')
	}
	if !positives {
		d := depth(40)
		b = append(b, spaces[d:]...)
		b = append(b, ats[:d]...)
		b = append(b, '|')
		return append(count(b), '\n')
	}
	d := depth(20)
	if val <= 0 {
		b = append(b, spaces[20+d:]...)
		b = append(b, ats[:d]...)
		b = append(b, '|')
		b = append(b, spaces[:20]...)
	} else {
		b = append(b, spaces[:20]...)
		b = append(b, '|')
		b = append(b, ats[:d]...)
		b = append(b, spaces[20+d:]...)
	}
	return append(count(b), '\n')
}

// normalize is "(long long)val / normal" with normal a uint64_t: C divides
// unsigned, which only matters for negative values under normalize().
func normalize(v int64, normal uint64) int64 {
	if normal <= 1 {
		return v
	}
	return int64(uint64(v) / normal)
}

// shownRange is the first and last bins dt_print_*quantize display: one
// zero bin either side of the nonzero ones, or bins [emptyLo, emptyHi] when
// all are zero.
func shownRange(data []int64, n, emptyLo, emptyHi int) (int, int) {
	first := 0
	for first < n && bucket(data, first) == 0 {
		first++
	}
	if first == n {
		return emptyLo, emptyHi
	}
	if first > 0 {
		first--
	}
	last := n - 1
	for last > 0 && bucket(data, last) == 0 {
		last--
	}
	if last < n-1 {
		last++
	}
	return first, last
}

// appendPlot prints the distribution of a quantize(), lquantize() or
// llquantize() value.
func appendPlot(b []byte, fn value.AggFunc, params value.AggParams, data []int64, normal uint64) ([]byte, error) {
	var p plot
	switch fn {
	case value.Quantize:
		first, last := quantizeRange(data)
		for i := first; i <= last; i++ {
			p.row(strconv.FormatInt(value.QuantizeValue(i), 10), bucket(data, i))
		}
	case value.Lquantize:
		q, err := value.LquantizeOf(params)
		if err != nil {
			return b, err
		}
		levels := int(q.Levels)
		first, last := shownRange(data, levels+2, 0, 2)
		for i := first; i <= last; i++ {
			var label string
			switch i {
			case 0:
				label = "< " + strconv.Itoa(int(q.Base))
			case levels + 1:
				label = ">= " + strconv.Itoa(int(q.Base)+levels*int(q.Step))
			default:
				label = strconv.Itoa(int(q.Base) + (i-1)*int(q.Step))
			}
			p.row(label, bucket(data, i))
		}
	case value.Llquantize:
		q, err := value.LlquantizeOf(params)
		if err != nil {
			return b, err
		}
		llquantizeRows(&p, q, data)
	default:
		return b, fmt.Errorf("format: %s is not a distribution", fn)
	}
	return p.write(b, normal), nil
}

// quantizeRange is the first_bin/last_bin logic of dt_print_quantize: one
// zero bucket either side of the nonzero ones; with no data the buckets
// -1, 0 and 1. (Its scan for the first nonzero bucket stops one short of
// the last, so data only in the last bucket also shows -1, 0, 1.)
func quantizeRange(data []int64) (int, int) {
	n := value.QuantizeBuckets
	first := 0
	for first < n-1 && bucket(data, first) == 0 {
		first++
	}
	if first == n-1 {
		return value.QuantizeZero - 1, value.QuantizeZero + 1
	}
	if first > 0 {
		first--
	}
	last := n - 1
	for last > 0 && bucket(data, last) == 0 {
		last--
	}
	if last < n-1 {
		last++
	}
	return first, last
}

// llquantizeRows is dt_print_llquantize's walk over the buckets: "< low",
// one row per bucket labelled by its lower bound, ">= high".
func llquantizeRows(p *plot, q value.LlquantizeLayout, data []int64) {
	bounds := q.Bounds()
	first, last := shownRange(data, len(bounds)+1, 0, 1)
	if first == 0 {
		p.row("< "+strconv.FormatInt(bounds[0], 10), bucket(data, 0))
	}
	for bin := max(first, 1); bin <= last && bin < len(bounds); bin++ {
		p.row(strconv.FormatInt(bounds[bin-1], 10), bucket(data, bin))
	}
	if last == len(bounds) {
		p.row(">= "+strconv.FormatInt(bounds[len(bounds)-1], 10), bucket(data, last))
	}
}
