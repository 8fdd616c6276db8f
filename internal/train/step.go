package train

import (
	"context"
	"math"
	"math/rand/v2"

	"golang.org/x/sync/errgroup"
)

// adagradEps is ε in the Adagrad update −lr·g/(√G + ε).
const adagradEps = 1e-8

// model is the trainable embedding bag and the scratch of one batch.
type model struct {
	rows, d int
	levels  []int   // Matryoshka prefix lengths, d first
	tau     float32 // InfoNCE temperature
	lr      float32
	workers int
	e       []float32 // rows×d embedding matrix E
	acc     []float32 // rows×d Adagrad sums of squared gradients
	frozen  []bool    // rows the update leaves alone; nil: none

	// Batch scratch, sized for the largest batch seen.
	enc     []float32   // 2B×d raw bag sums e (queries, then codes)
	grad    []float32   // 2B×d dL/de
	v       [][]float32 // per level: 2B×k normalised prefixes
	norm    [][]float32 // per level: 2B prefix norms
	gv      []float32   // 2B×d dL/dv of the current level
	s       []float32   // B×B similarities / τ
	rowLSE  []float64
	colLSE  []float64
	slot    []int32 // row → gradient slot, or -1
	touched []int32 // rows with a slot, in slot order
	rowGrad []float32
}

// newModel returns a model with E a copy of init (rows×d) when it is set,
// else drawn from N(0, 1/d), seeded.
func newModel(rows, d int, tau, lr float32, workers int, seed uint64, init []float32) *model {
	m := &model{rows: rows, d: d, tau: tau, lr: lr, workers: max(workers, 1)}
	for k := d; k >= 32 && len(m.levels) < 3; k /= 2 {
		m.levels = append(m.levels, k)
	}
	if len(m.levels) == 0 {
		m.levels = []int{d}
	}
	m.e = make([]float32, rows*d)
	if init != nil {
		copy(m.e, init)
	} else {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		sd := 1 / math.Sqrt(float64(d))
		for i := range m.e {
			m.e[i] = float32(r.NormFloat64() * sd)
		}
	}
	m.acc = make([]float32, rows*d)
	m.slot = make([]int32, rows)
	for i := range m.slot {
		m.slot[i] = -1
	}
	return m
}

// parallel runs f(w) for each worker w and waits; f must not fail.
func (m *model) parallel(f func(w int)) {
	if m.workers == 1 {
		f(0)
		return
	}
	var g errgroup.Group
	for w := range m.workers {
		g.Go(func() error { f(w); return nil })
	}
	g.Wait()
}

// encode writes the raw bag sum e of the text into dst (len d).
func (m *model) encode(dst []float32, rows []int32, coef []float32) {
	clear(dst)
	d := m.d
	for i, r := range rows {
		axpy(dst, coef[i], m.e[int(r)*d:int(r)*d+d])
	}
}

// forwardBackward computes the batch loss of the pairs (q[i], c[i]) (text
// indices into qb and cb) and leaves dL/dE in rowGrad for the rows in
// touched. It returns the loss summed over the Matryoshka levels.
func (m *model) forwardBackward(qb, cb *bags, q, c []int) float64 {
	B, d := len(q), m.d
	n := 2 * B
	grow := func(s []float32, k int) []float32 {
		if cap(s) < k {
			return make([]float32, k)
		}
		return s[:k]
	}
	m.enc, m.grad, m.gv = grow(m.enc, n*d), grow(m.grad, n*d), grow(m.gv, n*d)
	m.s = grow(m.s, B*B)
	if len(m.v) != len(m.levels) {
		m.v = make([][]float32, len(m.levels))
		m.norm = make([][]float32, len(m.levels))
	}
	for l, k := range m.levels {
		m.v[l], m.norm[l] = grow(m.v[l], n*k), grow(m.norm[l], n)
	}
	if cap(m.rowLSE) < B {
		m.rowLSE, m.colLSE = make([]float64, B), make([]float64, B)
	}
	m.rowLSE, m.colLSE = m.rowLSE[:B], m.colLSE[:B]
	text := func(t int) ([]int32, []float32) {
		if t < B {
			return qb.bag(q[t])
		}
		return cb.bag(c[t-B])
	}

	// Forward: bag sums and normalised prefixes; text t belongs to
	// worker t mod workers.
	m.parallel(func(w int) {
		for t := w; t < n; t += m.workers {
			e := m.enc[t*d : t*d+d]
			rows, coef := text(t)
			m.encode(e, rows, coef)
			for l, k := range m.levels {
				nrm := float32(math.Sqrt(float64(dot(e[:k], e[:k]))))
				m.norm[l][t] = nrm
				v := m.v[l][t*k : t*k+k]
				if nrm == 0 {
					clear(v)
					continue
				}
				for j := range v {
					v[j] = e[j] / nrm
				}
			}
			clear(m.grad[t*d : t*d+d])
		}
	})

	var loss float64
	inv2B := 1 / float64(2*B)
	for l, k := range m.levels {
		vq, vc := m.v[l][:B*k], m.v[l][B*k:]
		// Similarities, by rows.
		m.parallel(func(w int) {
			for i := w; i < B; i += m.workers {
				qi := vq[i*k : i*k+k]
				for j := range B {
					m.s[i*B+j] = dot(qi, vc[j*k:j*k+k]) / m.tau
				}
			}
		})
		m.parallel(func(w int) {
			for i := w; i < B; i += m.workers {
				m.rowLSE[i] = lse(m.s[i*B:i*B+B], 1)
				m.colLSE[i] = lse(m.s[i:], B)
			}
		})
		for i := range B {
			loss += (m.rowLSE[i] - float64(m.s[i*B+i]) + m.colLSE[i] - float64(m.s[i*B+i])) * inv2B
		}
		// dS/τ into s, in place: (softmax_row + softmax_col − 2δ)/(2B)/τ.
		m.parallel(func(w int) {
			for i := w; i < B; i += m.workers {
				for j := range B {
					s := float64(m.s[i*B+j])
					g := math.Exp(s-m.rowLSE[i]) + math.Exp(s-m.colLSE[j])
					if i == j {
						g -= 2
					}
					m.s[i*B+j] = float32(g * inv2B / float64(m.tau))
				}
			}
		})
		// dL/dv: for query i Σⱼ dSᵢⱼ vc[j], for code j Σᵢ dSᵢⱼ vq[i];
		// then through the normalisation v = e/‖e‖:
		// dL/de = (dL/dv − v (v·dL/dv)) / ‖e‖.
		m.parallel(func(w int) {
			for t := w; t < n; t += m.workers {
				g := m.gv[t*k : t*k+k]
				clear(g)
				if t < B {
					for j := range B {
						axpy(g, m.s[t*B+j], vc[j*k:j*k+k])
					}
				} else {
					j := t - B
					for i := range B {
						axpy(g, m.s[i*B+j], vq[i*k:i*k+k])
					}
				}
				nrm := m.norm[l][t]
				if nrm == 0 {
					continue
				}
				v := m.v[l][t*k : t*k+k]
				a := dot(v, g)
				ge := m.grad[t*d : t*d+k]
				for x := range ge {
					ge[x] += (g[x] - v[x]*a) / nrm
				}
			}
		})
	}

	// dL/dE[r] = Σ_t coef_t(r) · dL/de_t, rows in slots.
	m.touched = m.touched[:0]
	for t := range n {
		rows, _ := text(t)
		for _, r := range rows {
			if m.slot[r] < 0 {
				m.slot[r] = int32(len(m.touched))
				m.touched = append(m.touched, r)
			}
		}
	}
	m.rowGrad = grow(m.rowGrad, len(m.touched)*d)
	clear(m.rowGrad)
	W := int32(m.workers)
	m.parallel(func(w int) {
		for t := range n {
			rows, coef := text(t)
			g := m.grad[t*d : t*d+d]
			for x, r := range rows {
				if r%W != int32(w) {
					continue
				}
				s := int(m.slot[r]) * d
				axpy(m.rowGrad[s:s+d], coef[x], g)
			}
		}
	})
	return loss
}

// update applies sparse Adagrad to the touched rows and frees their slots.
func (m *model) update() {
	d := m.d
	W := int32(m.workers)
	m.parallel(func(w int) {
		for si, r := range m.touched {
			if r%W != int32(w) || m.frozen != nil && m.frozen[r] {
				continue
			}
			g := m.rowGrad[si*d : si*d+d]
			e := m.e[int(r)*d : int(r)*d+d]
			a := m.acc[int(r)*d : int(r)*d+d]
			for j := range g {
				a[j] += g[j] * g[j]
				e[j] -= m.lr * g[j] / (float32(math.Sqrt(float64(a[j]))) + adagradEps)
			}
		}
	})
	m.release()
}

// release frees the gradient slots of the touched rows.
func (m *model) release() {
	for _, r := range m.touched {
		m.slot[r] = -1
	}
	m.touched = m.touched[:0]
}

// step trains on one batch and returns its loss.
func (m *model) step(ctx context.Context, qb, cb *bags, q, c []int) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	loss := m.forwardBackward(qb, cb, q, c)
	m.update()
	return loss, nil
}

// embed writes the unit vector (full d) of bag i of b into dst.
func (m *model) embed(dst []float32, b *bags, i int) {
	rows, coef := b.bag(i)
	m.encode(dst, rows, coef)
	nrm := float32(math.Sqrt(float64(dot(dst, dst))))
	if nrm == 0 {
		return
	}
	for j := range dst {
		dst[j] /= nrm
	}
}

// lse returns log Σ exp(x[i·stride]) over the B = ceil(len/stride)
// elements, computed stably in float64.
func lse(x []float32, stride int) float64 {
	mx := math.Inf(-1)
	for i := 0; i < len(x); i += stride {
		mx = max(mx, float64(x[i]))
	}
	var s float64
	for i := 0; i < len(x); i += stride {
		s += math.Exp(float64(x[i]) - mx)
	}
	return mx + math.Log(s)
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds a·x to dst.
func axpy(dst []float32, a float32, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += a * x[i]
	}
}
