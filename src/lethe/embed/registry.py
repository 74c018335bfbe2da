"""The embedding models lethe can run, by the name a store records for its vectors.

A model is more than its weights: the revision and digests decide which bytes are trusted, the
tokenizer's length limit and the pooling decide what a vector means, and the name is what a
store compares before it lets a process search it. So each supported model is one entry here,
pinned like the default MiniLM (embed/download.py), and `LETHE_EMBEDDER` can only name one of
them: an unknown name is refused before any store or download is touched.

Only BERT-architecture sentence-transformers models with mean pooling and no instruction
prefixes are listed, because that is what the ONNX builder (onnx_build.py) and the shared
pooling (sentence.py) compute. intfloat/multilingual-e5-small would fit the graph, but it
expects "query: " and "passage: " before the text, and the `Embedder` contract has one
`embed` for both sides; it is left out rather than run without its prefixes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lethe.common.scripts import has_cjk
from lethe.embed import download
from lethe.embed.download import ModelFile
from lethe.errors import InvalidInput

DEFAULT = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    """What a store records as its `embedder`; the hub repository's id."""
    revision: str
    config: ModelFile
    tokenizer: ModelFile
    weights: ModelFile
    dim: int
    max_length: int
    """Tokens per text, as the model's sentence_bert_config.json sets `max_seq_length`."""
    fingerprint: Mapping[str, int | str] = field(default_factory=dict)
    """config.json values a local folder (LETHE_MODEL_DIR) must have to pass for this model:
    a folder of another model would otherwise write its vectors under this one's name."""
    size: str = ""
    """The download, roughly, for messages."""
    pooling: str = "mean"
    multilingual: bool = False
    """Trained on many languages, Japanese, Chinese and Korean among them: its vectors of
    such text mean something (engine/search.py counts them in full)."""

    @property
    def repo(self) -> str:
        return self.name

    @property
    def short(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def files(self) -> tuple[ModelFile, ...]:
        return (self.config, self.tokenizer, self.weights)


MINILM = ModelSpec(
    name=DEFAULT,
    revision=download.REVISION,
    config=download.CONFIG,
    tokenizer=download.TOKENIZER,
    weights=download.WEIGHTS,
    dim=384,
    max_length=256,
    fingerprint={"model_type": "bert", "vocab_size": 30522, "num_hidden_layers": 6},
    size="about 90 MB",
)
"""English only. Fetched by embed/download.py (which may take the published ONNX export
instead of the weights); listed here so that every model is found the same way."""

MULTILINGUAL_MINILM = ModelSpec(
    name="sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
    revision="e8f8c211226b894fcb81acc59f3b34ba3efd5f42",
    config=ModelFile(
        "config.json", 645, "6300193cb75e01cf80c96decef7187dfb33094d97cc1490b7ead6ff134476e4e"
    ),
    tokenizer=ModelFile(
        "tokenizer.json",
        9081518,
        "2c3387be76557bd40970cec13153b3bbf80407865484b209e655e5e4729076b8",
    ),
    weights=ModelFile(
        "model.safetensors",
        470641600,
        "eaa086f0ffee582aeb45b36e34cdd1fe2d6de2bef61f8a559a1bbc9bd955917b",
    ),
    dim=384,
    max_length=128,
    fingerprint={"model_type": "bert", "vocab_size": 250037, "num_hidden_layers": 12},
    size="about 480 MB",
    multilingual=True,
)
"""50+ languages, Japanese included: a 12-layer BertModel (384-d, 512 positions, two token
types) over XLM-R's SentencePiece Unigram tokenizer (250,037 pieces, `<pad>` = 1), mean
pooling, 128 tokens. The revision, sizes and SHA-256 digests were not downloaded on the
machine this was written on (it has no access to the hub); they are the ones several
independent public projects pin for this revision, and agree with the sizes the hub lists.
A download that does not match them is refused, never used."""

SUPPORTED: dict[str, ModelSpec] = {m.name: m for m in (MINILM, MULTILINGUAL_MINILM)}
"""By stored name. Tests add entries for models they write themselves."""


def names() -> list[str]:
    return list(SUPPORTED)


def resolve(name: str) -> ModelSpec:
    """The entry for `name`: its full name, or the part after the slash in any case
    (`paraphrase-multilingual-minilm-l12-v2`). Anything else is refused with the list."""
    wanted = name.strip()
    if wanted in SUPPORTED:
        return SUPPORTED[wanted]
    for spec in SUPPORTED.values():
        if wanted.lower() in (spec.name.lower(), spec.short.lower()):
            return spec
    raise InvalidInput(
        f"unknown embedding model {name!r}; supported: {', '.join(SUPPORTED)}",
        hint="set LETHE_EMBEDDER (or `embedder` in lethe.toml) to one of them; "
        "docs/configuration.md says what each is for",
    )


def reads(name: str, text: str) -> bool:
    """Whether the model `name` was trained on the script of `text`. A model not listed here
    (one a program passes itself) is taken to read everything."""
    spec = SUPPORTED.get(name)
    return spec is None or spec.multilingual or not has_cjk(text)
