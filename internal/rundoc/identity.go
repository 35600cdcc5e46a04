package rundoc

import (
	"regexp"
	"strings"
)

// A document's identity (model.served_name, model.id, the title) is published by
// submit: it must not carry a path of the machine that ran it. llama-server names its
// model after the file it was given (-m /home/me/models/x.gguf) unless started with
// -a; such a name is recorded as its file's base name.

// localPath matches what can only be a file on a machine: an absolute path (/, ~,
// a drive letter, a network share), an explicit relative one (./, ../), or a
// directory and a model file's name (models/x.gguf). A Hugging Face id
// ("Qwen/Qwen2.5-7B-Instruct", "org/x-GGUF") is none of these.
var localPath = regexp.MustCompile(`^(?:/|~|\\\\|[A-Za-z]:[\\/]|\.{1,2}[\\/])|[\\/][^\\/]*\.(?i:gguf|ggml|bin|safetensors|pt|pth|onnx|llamafile)$`)

// ModelName is name as a document may record it: the base name of a local path,
// the name itself otherwise; wasPath says it was a path.
func ModelName(name string) (recorded string, wasPath bool) {
	if !localPath.MatchString(name) {
		return name, false
	}
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if base == "" {
		base = "model"
	}
	return base, true
}
