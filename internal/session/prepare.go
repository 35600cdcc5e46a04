package session

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/hw"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FillFromProbe writes what discovery learned into the document's engine and model
// blocks, and names an emulated run as such.
//
// A model the server names after a local file (llama-server without -a) is recorded
// by the file's base name, and a note says so: the document is published (submit),
// and no path of this machine goes with it.
func FillFromProbe(doc *rundoc.Run, info *engine.Info, model string, emulated bool, base string) {
	info.ApplyTo(&doc.Engine, &doc.Model)
	served, fromPath := rundoc.ModelName(model)
	doc.Model.ServedName = served
	id, idPath := rundoc.ModelName(doc.Model.ID)
	doc.Model.ID = id
	if fromPath || idPath {
		doc.Notes = append(doc.Notes, fmt.Sprintf("The server names its model after a file on its machine; the document records the file's name, %s, and no path (llama-server -a NAME gives the model a name).", served))
	}
	if emulated || info.Engine == engine.Sim {
		doc.Status = rundoc.RunEmulated
		doc.Hardware.Type = "emulated"
	}
	if !emulated {
		doc.Config.Endpoint = base
	}
}

// FillTitle names the run as the seed page does: "{model} on {GPU} {VRAM}", or "on
// CPU" where the server's machine has none.
func FillTitle(doc *rundoc.Run) {
	if doc.Title != "" {
		return
	}
	on := "an unknown GPU"
	switch {
	case doc.Status == rundoc.RunEmulated:
		on = "llmbench-sim"
		if doc.Engine.Preset != "" {
			on += " (" + doc.Engine.Preset + ")"
		}
	case len(doc.Hardware.GPUs) > 0:
		g := doc.Hardware.GPUs[0]
		on = g.Name
		if g.Count > 1 {
			on = fmt.Sprintf("%d× %s", g.Count, g.Name)
		}
		if g.VRAMBytes > 0 {
			on += fmt.Sprintf(" %.0fGB", float64(g.VRAMBytes)/(1<<30))
		}
	case doc.Hardware.Type == "cpu":
		on = "CPU"
		if c := doc.Hardware.CPU; c != nil && c.Model != "" {
			on += " (" + c.Model + ")"
		}
	}
	doc.Title = doc.Model.ServedName + " on " + on
}

func DefaultOutName(model string, t time.Time) string {
	name := model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.")
	if name == "" {
		name = "run"
	}
	return name + "-" + t.Format("20060102-150405") + ".json"
}

// DescribeHardware fills the hardware block: from --hardware, or detected when the
// server runs on this machine. A remote server's machine cannot be seen from here.
func DescribeHardware(ctx context.Context, doc *rundoc.Run, file, base string, emulated bool) error {
	if file != "" {
		h, err := hw.ReadHardwareFile(file)
		if err != nil {
			return err
		}
		doc.Hardware = h
		return nil
	}
	if emulated {
		return nil
	}
	if !IsLocal(base) {
		doc.Notes = append(doc.Notes, "The server is remote: its hardware was not detected (describe it with --hardware FILE).")
		return nil
	}
	h, err := hw.Detect(ctx, "/", hw.ExecRunner{})
	if err != nil {
		doc.Notes = append(doc.Notes, "Hardware detection failed: "+err.Error())
		return nil
	}
	doc.Hardware = h
	return nil
}

// TokenizeRoute says how the discovered engine counts tokens.
func TokenizeRoute(info *engine.Info, base string) prompt.Route {
	if info.Tokenize == nil {
		return prompt.Route{}
	}
	r := prompt.Route{URL: base + *info.Tokenize, TokenIDPrompts: info.TokenIDPrompts != nil && *info.TokenIDPrompts}
	switch info.Engine {
	case engine.VLLM, engine.Sim:
		r.Style = "vllm"
		if info.TokenIDPrompts == nil {
			r.TokenIDPrompts = true // vLLM's /v1/completions takes list[int] prompts
		}
	case engine.SGLang:
		r.Style = "sglang"
	case engine.LlamaCpp:
		r.Style = "llamacpp"
	case engine.TGI:
		r.Style = "tgi"
	}
	return r
}

// prepare names the document's file, opens the events log, starts the meter and
// writes the document with every measurement pending.
func (s *Session) prepare(ctx context.Context) error {
	c := &s.cfg
	c.Out = cmp.Or(c.Out, DefaultOutName(c.Model, s.doc.CreatedAt))
	if err := rundoc.WriteFile(c.Out, s.doc); err != nil {
		return err
	}
	if err := s.eventLog(); err != nil {
		return err
	}
	if err := s.setupEnergy(ctx); err != nil {
		return err
	}
	return rundoc.WriteFile(c.Out, s.doc)
}

// eventLog opens --events for appending, when given.
func (s *Session) eventLog() error {
	if s.cfg.Events == "" {
		return nil
	}
	ef, err := os.OpenFile(s.cfg.Events, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening events log: %w", err)
	}
	events := measure.NewEventLog(ef)
	s.events = events
	s.closers = append(s.closers, func() { events.Flush(); ef.Close() })
	return nil
}
