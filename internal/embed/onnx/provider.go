//go:build onnx

package onnx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/ctx-dev/ctx/internal/embed"
)

var _ embed.Provider = (*Provider)(nil)

// The graph inputs the provider knows how to fill.
const (
	inputIDs      = "input_ids"
	attentionMask = "attention_mask"
	tokenTypeIDs  = "token_type_ids"
)

// hiddenOutput is the usual name of the token vectors output.
const hiddenOutput = "last_hidden_state"

// errClosed is returned by Embed after Close.
var errClosed = errors.New("provider is closed")

// Provider embeds texts with a transformer encoder exported to ONNX. It is
// safe for concurrent use; runs of the model take turns.
type Provider struct {
	model     embed.Model
	enc       encoder
	maxTokens int
	batchSize int
	cls       bool
	prefixes  embed.Prefixes
	// inputs are the graph's inputs, in the order runs pass them.
	inputs []string

	mu      sync.Mutex                  // guards session: runs and Close
	session *ort.DynamicAdvancedSession // nil once closed
}

// New loads the model in opts.ModelDir with the ONNX Runtime library at
// opts.LibraryPath (loading the library if it is the process's first
// New). The graph must take input_ids and may take attention_mask and
// token_type_ids, all int64 [batch, sequence], and no other input; its
// token vectors are the float32 [batch, sequence, hidden] output named
// last_hidden_state, else its first output of rank 3.
//
// Errors name what is missing or unsupported: no ModelDir or LibraryPath;
// a missing directory, model.onnx, tokenizer.json or library (matchable
// with errors.Is(err, fs.ErrNotExist)); a tokenizer other than WordPiece
// (wrapping static.ErrUnsupported); a pooling other than mean or cls; a
// library older than ONNX Runtime 1.24, or another library than the
// process already loaded; a graph the runtime rejects or whose inputs
// and outputs are not as above.
func New(opts Options) (*Provider, error) {
	p, err := newProvider(opts)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return p, nil
}

func newProvider(opts Options) (*Provider, error) {
	switch {
	case opts.ModelDir == "":
		return nil, errors.New("no model directory (Options.ModelDir): want a directory holding model.onnx and tokenizer.json")
	case opts.LibraryPath == "":
		return nil, fmt.Errorf("no ONNX Runtime library (Options.LibraryPath): want the path of libonnxruntime.so, version %s or newer", minRuntime)
	case opts.MaxTokens < 0:
		return nil, fmt.Errorf("negative MaxTokens %d", opts.MaxTokens)
	case opts.BatchSize < 0:
		return nil, fmt.Errorf("negative BatchSize %d", opts.BatchSize)
	case opts.Pooling != "" && opts.Pooling != MeanPooling && opts.Pooling != CLSPooling:
		return nil, fmt.Errorf("pooling %q: want %q or %q", opts.Pooling, MeanPooling, CLSPooling)
	}
	dir, err := readModelDir(opts.ModelDir)
	if err != nil {
		return nil, err
	}
	pooling := cmp.Or(opts.Pooling, dir.pooling, MeanPooling)
	if pooling != MeanPooling && pooling != CLSPooling {
		return nil, fmt.Errorf("model directory %s asks for %q pooling in 1_Pooling/config.json: set Options.Pooling to %q or %q",
			opts.ModelDir, pooling, MeanPooling, CLSPooling)
	}
	maxTokens := cmp.Or(opts.MaxTokens, DefaultMaxTokens)
	if dir.maxPositions > 0 {
		maxTokens = min(maxTokens, dir.maxPositions)
	}
	if maxTokens <= dir.enc.specials() {
		return nil, fmt.Errorf("MaxTokens %d leaves no room for text after %d special tokens", maxTokens, dir.enc.specials())
	}
	if err := loadRuntime(opts.LibraryPath); err != nil {
		return nil, err
	}
	inputs, output, dims, err := inspect(dir.graph)
	if err != nil {
		return nil, err
	}
	session, err := ort.NewDynamicAdvancedSession(dir.graph, inputs, []string{output}, nil)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %v", dir.graph, err)
	}
	p := &Provider{
		enc:       dir.enc,
		maxTokens: maxTokens,
		batchSize: cmp.Or(opts.BatchSize, DefaultBatchSize),
		cls:       pooling == CLSPooling,
		prefixes: embed.Prefixes{
			Query:    cmp.Or(opts.QueryPrefix, dir.prompts.Query),
			Document: cmp.Or(opts.DocumentPrefix, dir.prompts.Document),
		},
		inputs:  inputs,
		session: session,
	}
	if dims <= 0 {
		// The graph leaves the hidden size symbolic: run it once.
		b := newBatch([][]int32{p.enc.encode(nil, "", maxTokens)}, p.enc.pad)
		err := p.forward(&b, nil, func(_ []float32, d int) error {
			dims = d
			return nil
		})
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("running %s to learn its hidden size: %w", dir.graph, err)
		}
	}
	p.model = embed.Model{Provider: "onnx", Name: dir.name, Dims: dims}
	return p, nil
}

// inspect reads the graph's inputs and output: the names of its inputs,
// the name of its token vectors output and that output's hidden size (0
// when symbolic).
func inspect(graph string) (inputs []string, output string, dims int, err error) {
	ins, outs, err := ort.GetInputOutputInfo(graph)
	if err != nil {
		return nil, "", 0, fmt.Errorf("loading %s: %v", graph, err)
	}
	hasIDs := false
	for _, in := range ins {
		switch in.Name {
		case inputIDs, attentionMask, tokenTypeIDs:
		default:
			return nil, "", 0, fmt.Errorf("%s: input %q is not one of %s, %s, %s", graph, in.Name, inputIDs, attentionMask, tokenTypeIDs)
		}
		if in.OrtValueType != ort.ONNXTypeTensor || in.DataType != ort.TensorElementDataTypeInt64 || len(in.Dimensions) != 2 {
			return nil, "", 0, fmt.Errorf("%s: input %s is %v, want an int64 tensor [batch, sequence]", graph, in.Name, &in)
		}
		hasIDs = hasIDs || in.Name == inputIDs
		inputs = append(inputs, in.Name)
	}
	if !hasIDs {
		return nil, "", 0, fmt.Errorf("%s: no %s input", graph, inputIDs)
	}
	i := slices.IndexFunc(outs, func(o ort.InputOutputInfo) bool { return o.Name == hiddenOutput })
	if i < 0 {
		i = slices.IndexFunc(outs, func(o ort.InputOutputInfo) bool {
			return o.OrtValueType == ort.ONNXTypeTensor && len(o.Dimensions) == 3
		})
	}
	if i < 0 {
		return nil, "", 0, fmt.Errorf("%s: no %s output and no output of rank 3 among %d", graph, hiddenOutput, len(outs))
	}
	out := outs[i]
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat || len(out.Dimensions) != 3 {
		return nil, "", 0, fmt.Errorf("%s: output %s is %v, want a float32 tensor [batch, sequence, hidden]", graph, out.Name, &out)
	}
	return inputs, out.Name, int(max(out.Dimensions[2], 0)), nil
}

// Model reports {Provider: "onnx", Name: "<model directory base
// name>@<checksum>", Dims: hidden size}, where the checksum is the first
// 12 hex digits of the SHA-256 of model.onnx followed by tokenizer.json,
// so other weights or another vocabulary make an index stale. Pooling,
// prefixes and MaxTokens are not part of it.
func (p *Provider) Model() embed.Model { return p.model }

// Embed returns one unit-length vector per text, in order: the pooled
// token vectors of the text with its kind's prefix, cut to MaxTokens
// tokens. A text's vector does not depend on the other texts of the
// call: texts are run in batches of similar length, with padding the
// attention mask hides. Embed checks ctx between batches and stops a
// running batch when ctx ends.
//
// Errors: ctx.Err() (matchable with errors.Is) when ctx ends;
// [embed.ErrDimension] when the model's output changes size; an error
// after [Provider.Close]; the runtime's error, for example when the
// model fails on a token sequence.
func (p *Provider) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	texts = p.prefixes.Apply(texts, kind)
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		seqs[i] = p.enc.encode(nil, t, p.maxTokens)
	}
	// Texts of similar length share a batch, so little work goes to
	// padding.
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[a]), len(seqs[b])) })

	d := p.model.Dims
	out := make([][]float32, len(texts))
	back := make([]float32, len(texts)*d)
	run := make([][]int32, 0, p.batchSize)
	for start := 0; start < len(order); start += p.batchSize {
		idx := order[start:min(start+p.batchSize, len(order))]
		run = run[:0]
		for _, i := range idx {
			run = append(run, seqs[i])
		}
		b := newBatch(run, p.enc.pad)
		err := p.run(ctx, &b, func(hidden []float32, dims int) error {
			if dims != d {
				return fmt.Errorf("%w: output has hidden size %d, want %d", embed.ErrDimension, dims, d)
			}
			for r, i := range idx {
				v := back[i*d : (i+1)*d : (i+1)*d]
				b.pool(v, hidden, r, p.cls)
				out[i] = v
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("onnx: embedding %d texts with %s: %w", len(texts), p.model.Name, err)
		}
	}
	return out, nil
}

// run is forward under ctx: it returns ctx.Err() when ctx has ended, and
// terminates the run if ctx ends during it.
func (p *Provider) run(ctx context.Context, b *batch, use func(hidden []float32, dims int) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ro, err := ort.NewRunOptions()
	if err != nil {
		return fmt.Errorf("creating run options: %v", err)
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		ro.Terminate()
	})
	defer func() {
		if !stop() {
			<-done // Terminate is running; let it finish before Destroy.
		}
		ro.Destroy()
	}()
	err = p.forward(b, ro, use)
	if ctxErr := ctx.Err(); err != nil && ctxErr != nil {
		return ctxErr
	}
	return err
}

// forward runs the model on b, with ro when it is not nil, and calls use
// with the token vectors, [b.n, b.seq, dims] in row-major order, while
// they are alive.
func (p *Provider) forward(b *batch, ro *ort.RunOptions, use func(hidden []float32, dims int) error) error {
	shape := ort.NewShape(int64(b.n), int64(b.seq))
	in := make([]ort.Value, len(p.inputs))
	defer func() {
		for _, v := range in {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, name := range p.inputs {
		data := b.ids
		switch name {
		case attentionMask:
			data = b.mask
		case tokenTypeIDs:
			data = b.types
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return fmt.Errorf("creating %s tensor: %v", name, err)
		}
		in[i] = t
	}
	out := []ort.Value{nil} // allocated by the run
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session == nil {
		return errClosed
	}
	if err := p.session.RunWithOptions(in, out, ro); err != nil {
		return fmt.Errorf("running model: %v", err)
	}
	defer out[0].Destroy()
	t, ok := out[0].(*ort.Tensor[float32])
	s := out[0].GetShape()
	if !ok || len(s) != 3 || s[0] != int64(b.n) || s[1] != int64(b.seq) || s[2] <= 0 {
		return fmt.Errorf("model output is %T of shape %v, want float32 [%d, %d, hidden]", out[0], s, b.n, b.seq)
	}
	return use(t.GetData(), int(s[2]))
}

// Close releases the model's session. Embed fails after Close; Close is
// safe to call more than once. The runtime library stays loaded for
// other providers.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session == nil {
		return nil
	}
	err := p.session.Destroy()
	p.session = nil
	if err != nil {
		return fmt.Errorf("onnx: closing %s: %v", p.model.Name, err)
	}
	return nil
}
