"""A tiny multilingual BERT the tests write themselves, shaped like
paraphrase-multilingual-MiniLM-L12-v2: a BertModel (absolute positions, two token types)
over an XLM-R-style SentencePiece Unigram tokenizer (`<s>`=0, `<pad>`=1, `</s>`=2, `<unk>`=3,
Metaspace pieces, `<s> … </s>` around each text), trained here on a few Japanese and English
sentences. The real model's 470 MB of weights cannot be downloaded on the test machine; this
one has its architecture and tokenizer kind at 32 dimensions, so loading, fetching, the ONNX
graph and the forward pass are exercised on the same code paths.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from lethe.embed.download import ModelFile
from lethe.embed.registry import ModelSpec

CORPUS = [
    "私は毎朝コーヒーを飲みます。",
    "東京の天気は今日も晴れです。",
    "会議は来週の火曜日に延期されました。",
    "彼女はピーナッツのアレルギーがあります。",
    "新しいプロジェクトの締め切りは三月です。",
    "猫が窓の外を見ています。",
    "I drink coffee every morning.",
    "The weather in Tokyo is sunny again today.",
    "The meeting was moved to next Tuesday.",
    "She is allergic to peanuts.",
    "The deadline for the new project is in March.",
    "A cat is looking out of the window.",
]
SPECIAL = ["<s>", "<pad>", "</s>", "<unk>"]
HIDDEN = 32
LAYERS = 2
HEADS = 4
POSITIONS = 64


def _tokenizer_json() -> str:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers.trainers import UnigramTrainer

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = UnigramTrainer(
        vocab_size=400, special_tokens=SPECIAL, unk_token="<unk>", max_piece_length=8
    )
    tok.train_from_iterator(CORPUS * 4, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    text: str = tok.to_str()
    return text


def _weights(vocab: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    def ln(prefix: str) -> dict[str, np.ndarray]:
        return {
            f"{prefix}.weight": (1.0 + r(HIDDEN)).astype(np.float32),
            f"{prefix}.bias": r(HIDDEN),
        }

    w = {
        "embeddings.word_embeddings.weight": r(vocab, HIDDEN),
        "embeddings.position_embeddings.weight": r(POSITIONS, HIDDEN),
        "embeddings.token_type_embeddings.weight": r(2, HIDDEN),
        **ln("embeddings.LayerNorm"),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name, (out, inp) in {
            "attention.self.query": (HIDDEN, HIDDEN),
            "attention.self.key": (HIDDEN, HIDDEN),
            "attention.self.value": (HIDDEN, HIDDEN),
            "attention.output.dense": (HIDDEN, HIDDEN),
            "intermediate.dense": (4 * HIDDEN, HIDDEN),
            "output.dense": (HIDDEN, 4 * HIDDEN),
        }.items():
            w[f"{p}{name}.weight"] = r(out, inp)
            w[f"{p}{name}.bias"] = r(out)
        w.update(ln(f"{p}attention.output.LayerNorm"))
        w.update(ln(f"{p}output.LayerNorm"))
    return w


def write_model(folder: Path, *, seed: int = 0) -> Path:
    """Write config.json, tokenizer.json and model.safetensors into `folder`."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer_json()
    (folder / "tokenizer.json").write_text(tokenizer, encoding="utf-8")
    vocab = len(json.loads(tokenizer)["model"]["vocab"])
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "intermediate_size": 4 * HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "max_position_embeddings": POSITIONS,
        "type_vocab_size": 2,
        "vocab_size": vocab,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    save_file(_weights(vocab, seed), str(folder / "model.safetensors"))
    return folder


def _pinned(folder: Path, name: str) -> ModelFile:
    data = (folder / name).read_bytes()
    return ModelFile(name, len(data), hashlib.sha256(data).hexdigest())


def spec_for(folder: Path, name: str = "lethe-test/tiny-multilingual-bert") -> ModelSpec:
    """A registry entry pinning the files in `folder`, as a real entry pins the hub's."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return ModelSpec(
        name=name,
        revision="0123456789abcdef0123456789abcdef01234567",
        config=_pinned(folder, "config.json"),
        tokenizer=_pinned(folder, "tokenizer.json"),
        weights=_pinned(folder, "model.safetensors"),
        dim=HIDDEN,
        max_length=POSITIONS,
        fingerprint={
            "model_type": "bert",
            "vocab_size": config["vocab_size"],
            "num_hidden_layers": LAYERS,
        },
        size="about 0.1 MB",
    )
