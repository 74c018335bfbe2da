"""Full text for Japanese, Chinese and Korean: the gram index (store/grams.py) on both stores,
its migration over memories stored before it, and its erasure."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.store import grams as grams_module
from lethe.store.grams import grams, query_grams
from tests.backends import sqlite_only

JAPANESE = [
    "ユーザーは東京に住んでいる",
    "ユーザーは猫を二匹飼っている",
    "ユーザーはコーヒーより紅茶が好き",
    "来週の月曜日に歯医者の予約がある",
]


def test_a_text_is_cut_into_its_characters_and_their_pairs() -> None:
    assert grams("猫が好き") == ["猫", "猫が", "が", "が好", "好", "好き", "き"]
    assert grams("I like cats") == [], "a text without CJK gives nothing to index"
    # Latin words and numbers count in a text that holds CJK, and pairs across the boundary
    assert grams("5月3日") == ["5", "5月", "月", "月3", "3", "3日", "日"]
    assert "python" in grams("ユーザーはPythonが好き")
    # full-width letters and half-width katakana are the ordinary ones
    assert grams("ＴＫ１２３のｶﾒﾗ")[:1] == ["tk123"] and "カメラ" not in grams("ｶﾒﾗ")
    assert "カメ" in grams("ｶﾒﾗ")
    # punctuation separates
    assert "。東" not in grams("猫。東京")


def test_a_query_keeps_the_grams_that_carry_its_content() -> None:
    # particles and endings go, and so does a character of a longer word (仕, 事 of 仕事)
    assert query_grams("猫のことは忘れて") == ["猫", "忘"]
    assert query_grams("田中さんの仕事は?") == ["田中", "仕事"]
    assert query_grams("ねこ") == ["ね", "ねこ", "こ"], "a query in hiragana alone keeps them"
    assert query_grams("Pythonの勉強") == ["python", "勉強"]


def test_an_english_model_counts_less_for_a_query_it_cannot_read() -> None:
    from lethe.common.ranking import fuse
    from lethe.embed.registry import DEFAULT, MULTILINGUAL_MINILM, reads

    assert reads(DEFAULT, "where does the user live?")
    assert not reads(DEFAULT, "ユーザーはどこに住んでいる?")
    assert reads(MULTILINGUAL_MINILM.name, "ユーザーはどこに住んでいる?")
    assert reads("a-model-of-my-own", "猫"), "a model lethe does not list is trusted"
    # the gram index's second beats the vectors' first once the vectors count less
    even = fuse(["v1", "v2"], ["w1", "w2"])
    assert [f.id for f in even][:2] == ["v1", "w1"]
    weighed = fuse(["v1", "v2"], ["w1", "w2"], vector_weight=0.3)
    assert [f.id for f in weighed][:3] == ["w1", "w2", "v1"]
    assert fuse(["a"], ["a"], vector_weight=0.3)[0].score == pytest.approx(1.0)


def test_recall_finds_a_word_inside_japanese_text(mem: Lethe) -> None:
    ids = {text: mem.remember(text).id for text in JAPANESE}
    mem.remember("The user likes Python and hiking")
    mixed = mem.remember("ユーザーはPythonでスクリプトを書く").id
    for query, text in [
        ("歯医者", JAPANESE[3]),
        ("猫", JAPANESE[1]),
        ("東京", JAPANESE[0]),
        ("紅茶は好き？", JAPANESE[2]),
        ("月曜日の予定", JAPANESE[3]),
    ]:
        hits = mem.recall(query, k=2)
        assert hits[0].memory.id == ids[text], (query, [h.memory.content for h in hits])
        assert hits[0].lexical_rank == 1, query
    python = {h.memory.id: h.lexical_rank for h in mem.recall("python", k=10)}
    assert python.get(mixed) is not None, "an English word inside Japanese text is found"


def test_an_english_store_indexes_nothing_in_the_gram_index(
    db_path: Path, embedder: Embedder
) -> None:
    with Lethe.open(db_path, embedder=embedder) as mem:
        mem.remember("The user lives in Lisbon")
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT count(*) FROM memories_grams_vocab").fetchone() == (0,)
    conn.close()


def test_a_changed_text_is_found_by_its_new_words_only(mem: Lethe) -> None:
    m = mem.remember("ユーザーは犬を飼っている")
    mem.update(m.id, content="ユーザーは金魚を飼っている")
    assert [h.memory.id for h in mem.recall("金魚", k=1)] == [m.id]
    assert all(h.lexical_rank is None for h in mem.recall("犬", k=5))


def test_the_grams_of_both_stores_agree(pg_dsn: str, embedder: Embedder) -> None:
    """PostgreSQL computes the grams in PL/pgSQL (migration 11): they must be the very
    tokens Python computes, or a query would miss what the other store finds."""
    texts = [
        *JAPANESE,
        "パスポート番号はTK1234567、有効期限は2030年",
        "ｶﾀｶﾅと全角ＡＢＣ１２３",
        "고양이를 두 마리 키워요",
        "我的猫叫小白",
        "Café au lait と crème brûlée",
        "𠮷野家で牛丼を食べた",
        "々〆〇ヶ所・ー",
        "emoji 🐈 ねこ",
        "no cjk at all",
        "",
        "鍵のバックアップ: " + "A" * 2100 + " と " + "b" * 64,
    ]
    with Lethe.open(pg_dsn, embedder=embedder):
        pass
    with psycopg.connect(pg_dsn) as conn:
        for text in texts:
            row = conn.execute("SELECT lethe_gram_tokens(%s)", (text,)).fetchone()
            assert row is not None and row[0] == grams(text), text


@contextmanager
def _counted() -> Iterator[tuple[list[tuple[str, int]], Callable[..., object]]]:
    seen: list[tuple[str, int]] = []
    advanced: list[int] = []

    @contextmanager
    def bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
        seen.append((label, total))
        yield advanced.append

    yield seen, bar


def _unmigrate_sqlite(path: Path) -> None:
    """Take a store back to the schema before the gram index (version 17): the receipts of
    migration 19 and the held expiries of migration 20 go too."""
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE memories DROP COLUMN expiry_held")
    for table in ("receipts", "receipt_keys"):
        conn.execute(f"DROP TABLE {table}")
    for name in ("memories_grams_insert", "memories_grams_delete", "memories_grams_update"):
        conn.execute(f"DROP TRIGGER {name}")
    for name in ("context_grams_insert", "context_grams_delete"):
        conn.execute(f"DROP TRIGGER {name}")
    for table in (
        "memories_grams_vocab",
        "memories_grams",
        "memory_gram_text",
        "context_grams_vocab",
        "context_grams",
        "context_gram_text",
    ):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("PRAGMA user_version = 17")
    conn.commit()
    conn.close()


def _unmigrate_postgres(dsn: str) -> None:
    """Take a database back to the schema before the gram columns (version 17 of the one
    list; 10 in PostgreSQL's old numbering): the receipts of migration 19 and the held
    expiries of migration 20 go too."""
    with psycopg.connect(dsn) as conn, conn.transaction():
        conn.execute("ALTER TABLE memories DROP COLUMN expiry_held")
        conn.execute("DROP TABLE receipts, receipt_keys")
        conn.execute("DROP TRIGGER memories_grams ON memories")
        conn.execute("DROP TRIGGER memory_context_grams ON memory_context")
        conn.execute("ALTER TABLE memories DROP COLUMN grams")
        conn.execute("ALTER TABLE memory_context DROP COLUMN grams")
        conn.execute("DROP FUNCTION lethe_grams_row(), lethe_grams(text), lethe_gram_tokens(text)")
        conn.execute("UPDATE lethe_meta SET value = '17' WHERE key = 'schema_version'")


def test_the_migration_indexes_the_memories_stored_before_it(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        ids = [mem.remember(text).id for text in JAPANESE]
        for i in range(30):
            mem.remember(f"English filler memory number {i}")
    if db.startswith("postgresql"):
        _unmigrate_postgres(db)
    else:
        _unmigrate_sqlite(Path(db))
    with _counted() as (seen, bar), Lethe.open(db, embedder=embedder, progress=bar) as mem:
        assert seen and seen[0][1] == len(JAPANESE) + 30, "the bar counts every memory"
        assert mem.recall("歯医者", k=1)[0].memory.id == ids[3]
        assert mem.recall("猫", k=1)[0].lexical_rank == 1
    with _counted() as (again, bar), Lethe.open(db, embedder=embedder, progress=bar):
        assert again == [], "an up-to-date store has nothing to migrate"


@sqlite_only
def test_a_backfill_that_fails_leaves_the_file_as_it_was(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        for text in JAPANESE:
            mem.remember(text)
    _unmigrate_sqlite(Path(db))

    def broken(text: str) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("lethe.store.sqlite_grams.index_text", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        Lethe.open(db, embedder=embedder)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone() == (17,)
    assert conn.execute("SELECT count(*) FROM memories").fetchone() == (len(JAPANESE),)
    conn.close()
    monkeypatch.undo()
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.recall("東京", k=1)[0].lexical_rank == 1


@sqlite_only
def test_a_purge_leaves_no_gram_of_the_erased_text(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        kept = mem.remember("ユーザーは猫を二匹飼っている")
        gone = mem.remember("ユーザーの暗証番号は鶯鷲鸚鵡、合言葉はqzxv8841")
        mem.execute(mem.plan_purge([gone.id]))
        assert all(h.memory.id != gone.id for h in mem.recall("鶯鷲", k=5))
        assert mem.recall("猫", k=1)[0].memory.id == kept.id
    conn = sqlite3.connect(db)
    terms = {row[0] for row in conn.execute("SELECT term FROM memories_grams_vocab")}
    assert not terms & {"鶯", "鶯鷲", "鷲鸚", "鸚鵡"}, terms & {"鶯", "鶯鷲", "鷲鸚", "鸚鵡"}
    assert "猫" in terms
    conn.close()
    # Terms are stored prefix-compressed, so only one no other term begins like is sure to
    # lie whole in the file while its index segment does.
    raw = Path(db).read_bytes()
    assert b"qzxv8841" not in raw


def test_grams_module_names_what_it_covers() -> None:
    """The ranges are the one definition both stores follow; a character class that lost
    hiragana or the ideographs would quietly empty the index."""
    for char in "あアー漢々한":
        assert grams_module.has_cjk(char), char
    for char in "a1。、・「":
        assert not grams_module.has_cjk(char), char


def test_a_blob_inside_japanese_text_is_stored_and_not_indexed(mem: Lethe) -> None:
    """PostgreSQL refuses a lexeme over 2,046 bytes: a key pasted into a Japanese note must
    not make the note (or the conversation it is in) impossible to store."""
    blob = "QUJD" * 600
    m = mem.remember(f"鍵のバックアップ: {blob}", metadata={"session": "chat1"})
    mem.remember("了解しました、保存します", metadata={"session": "chat1"})
    mem.update(m.id, content=f"鍵のバックアップ（新）: {blob}")
    assert mem.recall("バックアップ", k=1)[0].memory.id == m.id
    assert blob.lower() not in grams(f"鍵 {blob}")


def test_a_chinese_query_searches_its_one_character_words(mem: Lethe) -> None:
    m = mem.remember("我养了一只猫")
    mem.remember("我住在上海")
    for query in ("关于猫", "我有猫吗"):
        hits = mem.recall(query, k=2)
        assert hits[0].memory.id == m.id and hits[0].lexical_rank == 1, query


@sqlite_only
def test_a_text_indexed_with_other_grams_leaves_none_when_erased(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grams a text was indexed with are kept, so erasing it removes exactly those, even
    when the process erasing it would compute others (a Python with newer Unicode tables, or
    a lethe that cuts text differently)."""
    with Lethe.open(db, embedder=embedder) as mem:
        monkeypatch.setattr(
            "lethe.store.sqlite_grams.index_text", lambda text: "zzgramof " + " ".join(grams(text))
        )
        with Lethe.open(db, embedder=embedder) as writer:
            gone = writer.remember("合言葉は猫").id
        monkeypatch.undo()
        conn = sqlite3.connect(db)
        indexed = conn.execute("SELECT grams FROM memory_gram_text").fetchone()[0]
        conn.close()
        assert indexed.startswith("zzgramof "), "the text was indexed with the other grams"
        mem.execute(mem.plan_purge([gone]))
    conn = sqlite3.connect(db)
    terms = {row[0] for row in conn.execute("SELECT term FROM memories_grams_vocab")}
    conn.close()
    assert "zzgramof" not in terms and "猫" not in terms, terms


@sqlite_only
def test_a_latin_word_in_japanese_text_is_found_in_either_case(mem: Lethe) -> None:
    m = mem.remember("娘はÉCOLE Ángelに通っている")
    for query in ("ÉCOLEはどこ?", "Ángelはどこ?", "écoleはどこ?"):
        assert mem.recall(query, k=1)[0].lexical_rank == 1, query
    assert mem.recall("ÉCOLEはどこ?", k=1)[0].memory.id == m.id
