"""A generated Japanese development set (issue 22): memories, questions and forget requests.

Deterministic (seeded with `random.Random(seed)`), no download, no network. One seed builds
one user's store of ~300 memories written as an agent stores them (plain form,
「ユーザーは…」), the recall questions asked of it and the forget requests made to it. All
questions and requests run against the whole store, so ground truth is decided by what each
memory is *about*, not by its words: every memory carries subject tags (`cat`, `person:田中`,
`date:来週の月曜日`, ...) and a request targets every memory tagged with its subject. Its
`keep` set is what must not be touched and tempts most: the memories that hold a word of the
request (or a named twin) but are about something else. Every other memory must be left alone
as well; `keep` only names the traps.

How it is built: a world is drawn from word lists (`ja_vocab.py`): a home city and station, a
former city, a hometown, two cats, the parents' dog, a friend and a person named alike, a
boss and a colleague named alike, a nephew, a sister, a brother, mother and father, a dentist
appointment and other plans on dates in Japanese formats (2月5日, 来週の月曜日), a camera and
contact lenses, work tools (Slack, Python, Google, iPhone, Netflix), identifiers (passport
number, Wi-Fi password, plate, phone, e-mail), a trip, food and health facts, two hobbies.
Fillers follow: facts about ten other people and about the user's life that share no subject
with any request. Memory ids (`ja-0001`…) are assigned after a seeded shuffle, so neighbouring
ids say nothing about topics.

Questions (`JaQuestion`): `shares_content_word` is True when the question holds a content word
that literally appears in its memory (`word`: 猫, 紅茶, 歯医者, Python, a name); False for
paraphrases that share no kanji, no katakana pair and no Latin token with it (checked),
such as 「ペットについて教えて」 for 「ユーザーは猫を二匹飼っている。」. Issue 22's target:
recall@5 >= 0.9 on the sharing ones. When several memories answer a question, any of its
targets is a hit.

Request kinds (`JaRequest.kind`), each worded with several frames (は/を/の/について, plain and
polite imperatives: 忘れて, 忘れてください, 削除してほしい, 消しておいて, 消去して...):

- `topic`       「猫のことは全部忘れて」: every memory about the user's cats. Traps: 猫カフェ,
                猫舌, 猫背, 招き猫, a friend's 猫アレルギー, someone who does not have a cat.
                「カメラのことは全部忘れて」 keeps the コンタクトレンズ memories and the reverse;
                「紅茶のことは忘れて」 keeps 緑茶; 「車のことは全部忘れて」 keeps 電車 and 自転車;
                one named cat keeps the other cat and the memories about both.
- `fact`        one fact: 「歯医者の予約は忘れて」 (not the dentist's advice, not the eye exam),
                「父がタバコを吸っていることは忘れて」 (not 「ユーザーはタバコを吸わない。」, the
                negated twin, nor someone who quit), a former city (not the business trip there).
- `person`      「田中さんのことは全部忘れて」: every memory about that person (a plan with them
                included). Traps: the person named alike (中田, 小林 for 林 — a substring —,
                斎藤 for 斉藤), a shop 「田中屋」, a place 「田中町」; family words keep 祖母,
                母校, 祖父, someone else's お母さん/お兄さん/妹さん; 「美咲のことは…」 names the
                sister by her name, so every sister memory is meant.
- `identifier`  「パスポート番号を削除して」 (not the expiry date) and the token itself
                「TK1234567を削除して」: exact token — a hotel booking number with the passport
                number as prefix, a phone number one digit off, the work e-mail with the same
                local part, the office Wi-Fi are traps.
- `date`        「2月5日の予定は忘れて」: every plan on that day; not the sister's birthday on
                that day (a fact, not a plan), not 12月5日 (it contains 2月5日). 「来週の月曜日の
                予定」 keeps the check-up 「先週の月曜日」.
- `mixed`       Japanese requests about English words: 「Slackのことは忘れて」 keeps スラックス,
                「Pythonのことは全部忘れて」 keeps a friend's ボールパイソン, iPhone keeps iPad.

    python bench/ja_cases.py --seed 0      # counts per kind and five examples of each
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import ja_vocab as v


@dataclass(frozen=True)
class JaMemory:
    id: str
    text: str
    about: frozenset[str]
    """Subject tags: what the memory is about; requests resolve their targets from these."""


@dataclass(frozen=True)
class JaQuestion:
    id: str
    text: str
    targets: tuple[str, ...]
    """The memory the question should retrieve (any of them counts when several answer it)."""
    shares_content_word: bool
    word: str
    """The content word found in the question and in every target ("" for a paraphrase)."""


@dataclass(frozen=True)
class JaRequest:
    id: str
    kind: str
    form: str
    """The frame the request was worded with (`{X}のことは全部忘れて`), for analysis."""
    text: str
    subject: str
    targets: frozenset[str]
    """Exactly what a careful person means."""
    keep: frozenset[str]
    """Tempting memories that must not be touched (they hold a word of the request or are the
    named twin); every memory outside `targets` must be left alone too."""


@dataclass(frozen=True)
class JaSet:
    memories: tuple[JaMemory, ...]
    questions: tuple[JaQuestion, ...]
    requests: tuple[JaRequest, ...]


Ref = str | int
"""A subject tag, or one memory by its build index."""


@dataclass(frozen=True)
class _Req:
    kind: str
    form: str
    text: str
    subject: str
    about: tuple[Ref, ...]
    words: tuple[str, ...]
    keep: tuple[Ref, ...]


def person(name: str) -> str:
    return f"person:{name}"


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mems: list[tuple[str, frozenset[str]]] = []
        self.qs: list[tuple[str, tuple[int, ...], str]] = []
        self.reqs: list[_Req] = []

    def m(self, text: str, *about: str) -> int:
        self.mems.append((text, frozenset(about)))
        return len(self.mems) - 1

    def q(self, text: str, targets: int | Sequence[int], word: str = "") -> None:
        self.qs.append((text, (targets,) if isinstance(targets, int) else tuple(targets), word))

    def r(
        self,
        kind: str,
        x: str,
        about: Sequence[Ref],
        frames: Sequence[str],
        *,
        n: int = 2,
        words: Sequence[str] = (),
        keep: Sequence[Ref] = (),
    ) -> None:
        """`n` requests for subject `x`, each in another frame drawn from `frames`."""
        pool = [f for f in frames if not (x.endswith("こと") and "{X}の" in f)]
        for frame in self.rng.sample(pool, min(n, len(pool))):
            text = frame.format(X=x)
            self.reqs.append(_Req(kind, frame, text, x, tuple(about), tuple(words), tuple(keep)))

    def hit(self, index: int, ref: Ref) -> bool:
        return index == ref if isinstance(ref, int) else ref in self.mems[index][1]

    def finish(self) -> JaSet:
        order = list(range(len(self.mems)))
        self.rng.shuffle(order)
        ids = {index: f"ja-{pos:04d}" for pos, index in enumerate(order, 1)}
        memories = sorted(
            (JaMemory(ids[i], text, about) for i, (text, about) in enumerate(self.mems)),
            key=lambda m: m.id,
        )
        questions = [
            JaQuestion(f"jq-{n:03d}", text, tuple(ids[t] for t in targets), bool(word), word)
            for n, (text, targets, word) in enumerate(self.qs, 1)
        ]
        requests = []
        for n, r in enumerate(self.reqs, 1):
            everyone = range(len(self.mems))
            targets = {i for i in everyone if any(self.hit(i, a) for a in r.about)}
            keep = {
                i
                for i in everyone
                if i not in targets
                and (
                    any(self.hit(i, k) for k in r.keep)
                    or any(w in self.mems[i][0] for w in r.words)
                )
            }
            requests.append(
                JaRequest(
                    f"jr-{n:03d}",
                    r.kind,
                    r.form,
                    r.text,
                    r.subject,
                    frozenset(ids[i] for i in targets),
                    frozenset(ids[i] for i in keep),
                )
            )
        return JaSet(tuple(memories), tuple(questions), tuple(requests))


# -- the user's world ----------------------------------------------------------------------


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _one_off(rng: random.Random, text: str) -> str:
    spots = [i for i, c in enumerate(text) if c.isdigit() and i >= 4]  # keep 090-
    i = rng.choice(spots)
    return text[:i] + str((int(text[i]) + rng.randint(1, 9)) % 10) + text[i + 1 :]


def _world(b: _Builder) -> None:
    rng = b.rng
    pick = rng.choice
    S, F_, I_, D_ = v.SUBJECT_FRAMES, v.FACT_FRAMES, v.IDENT_FRAMES, v.DATE_FRAMES
    fn = rng.sample(v.FILLER_NAMES, len(v.FILLER_NAMES))
    city = pick(list(v.CITIES))
    station = pick(v.CITIES[city])
    prev, other_city = rng.sample([c for c in v.CITIES if c != city], 2)
    home = pick(v.HOMETOWNS)
    w1, w2, w3 = rng.sample(v.WEEKDAYS, 3)
    d1 = f"{pick((1, 2))}月{rng.randint(3, 28)}日"
    dates = rng.sample([(m, d) for m in range(3, 11) for d in range(1, 29)], 3)
    bd_friend, bd_mother, vaccine = (f"{m}月{d}日" for m, d in dates)
    month_py, month_car = rng.sample(v.MONTH_NAMES, 2)

    # Home. Trap: a business trip to the former city.
    live = b.m(f"ユーザーは{city}に住んでいる。", "home")
    sta = b.m(f"ユーザーの最寄り駅は{station}駅。", "home")
    rent = b.m(f"ユーザーの家賃は月{pick(v.RENTS)}。", "home", "money")
    past = b.m(f"ユーザーは{pick(v.YEARS)}年まで{prev}に住んでいた。", "home-past")
    trip = b.m(f"ユーザーは来月、仕事で{prev}に出張する。", "work-trip")
    born = b.m(f"ユーザーは{home}の出身で、実家は今も{home}にある。", "hometown")
    b.q("ユーザーはどこに住んでいる?", live, "住んで")
    b.q("最寄り駅はどこ?", sta, "最寄り駅")
    b.q("家賃はいくら?", rent, "家賃")
    b.q(f"{prev}に住んでいたのはいつまで?", past, prev)
    b.q("出張の予定は?", trip, "出張")
    b.q("どの街で暮らしている?", live)
    b.q("ふるさとはどこ?", born)
    b.r("fact", f"{prev}に住んでいたこと", [past], F_, words=(prev,))
    b.r("fact", "家賃", [rent], F_, words=("家賃",))
    b.r("fact", f"{prev}への出張", [trip], F_, words=(prev, "出張"))

    # The user's cats. Traps: 猫カフェ, 猫舌, 猫背, 招き猫, a friend's allergy, no cat.
    c1, c2 = rng.sample(v.CAT_NAMES, 2)
    k1 = b.m("ユーザーは猫を二匹飼っている。", "cat")
    k2 = b.m(f"{c1}は{rng.randint(5, 12)}歳の{pick(v.CAT_COATS)}で、人見知りが激しい。", "cat", c1)
    k3 = b.m(f"{c2}はまだ1歳のオスで、毎朝6時にご飯をねだって起こしに来る。", "cat", c2)
    k4 = b.m(f"{c1}は腎臓の薬を毎日飲んでいる。", "cat", c1)
    k5 = b.m(f"猫たちのワクチン接種を{vaccine}に予定している。", "cat", f"date:{vaccine}")
    k6 = b.m(f"猫のエサは{pick(v.CAT_FOODS)}を通販でまとめ買いしている。", "cat")
    k7 = b.m(f"{c2}の写真をよくInstagramに投稿している。", "cat", c2)
    b.m("ユーザーは先週末、近所の猫カフェに初めて行った。", "outing")
    tongue = b.m("ユーザーは猫舌なので、熱い飲み物は少し冷ましてから飲む。", "body")
    back = b.m("ユーザーは猫背を直すために、毎日ストレッチをしている。", "body")
    lucky = b.m("実家の玄関には大きな招き猫が置いてある。", "hometown")
    b.m(f"{fn[1]}さんは犬派で、猫は飼っていない。", person(fn[1]))
    b.q("猫は何匹飼っている?", k1, "猫")
    b.q(f"{c1}は何歳?", k2, c1)
    b.q(f"{c2}は朝何時に起こしてくる?", k3, c2)
    b.q(f"{c1}が飲んでいる薬は?", k4, "薬")
    b.q("猫のワクチンはいつ?", k5, "ワクチン")
    b.q("猫のエサはどこで買っている?", k6, "エサ")
    b.q(f"{c2}の写真はどこに載せている?", k7, "写真")
    b.q("ペットについて教えて", k1)
    b.q("熱い飲み物が苦手な理由は?", tongue, "熱い")
    b.q("姿勢のために何をしている?", back)
    b.q("招き猫はどこにある?", lucky, "招き猫")
    b.r("topic", "猫", ["cat"], S, n=3, words=("猫",))
    mine = ("うちの猫たちのことは全部忘れて", "飼っている猫に関する記憶は全部消してください")
    b.r("topic", "猫", ["cat"], mine, words=("猫",))
    b.r("topic", c1, [c1], S, words=(c1, "猫"), keep=["cat"])
    b.r("topic", c2, [c2], S, n=1, words=(c2, "猫"), keep=["cat"])
    b.r("fact", "猫のワクチンの予定", [k5], F_, words=("猫", "ワクチン"))
    b.r("date", vaccine, [f"date:{vaccine}"], D_, n=1, words=(vaccine,))

    # The parents' dog. Trap: bitten by a dog as a child; a friend who prefers dogs.
    dog = pick(v.DOG_NAMES)
    g1 = b.m(f"実家で飼っている犬は{pick(v.DOG_BREEDS)}の{dog}。", "dog")
    g2 = b.m(f"{dog}は今年で{rng.randint(8, 14)}歳になる。", "dog")
    g3 = b.m(f"{dog}は雨の日でも散歩に行きたがる。", "dog")
    bite = b.m("ユーザーは子どもの頃に犬に噛まれて以来、大型犬が少し怖い。", "body")
    b.q("実家の犬の名前は?", g1, "犬")
    b.q(f"{dog}は何歳?", g2, dog)
    b.q(f"{dog}は雨でも散歩に行く?", g3, "散歩")
    b.q("大型犬が怖いのはなぜ?", bite, "大型犬")
    b.q("里帰りすると会える動物は?", g1)
    b.r("topic", "実家の犬", ["dog"], S, words=("犬",))
    b.r("topic", dog, ["dog"], S, words=(dog, "犬"))

    # A friend and a person named alike; a shop and a place holding the friend's name.
    f, twin = pick(v.FRIENDS)
    phone_f, phone_t = (f"080-{_digits(rng, 4)}-{_digits(rng, 4)}" for _ in range(2))
    f1 = b.m(f"{f}さんは大学時代からの友人。", person(f))
    f2 = b.m(f"{f}さんに{pick(v.LOANS)}を貸した。", person(f), "money")
    f3 = b.m(f"{f}さんの誕生日は{bd_friend}。", person(f))
    f4 = b.m(f"{f}さんは商社で営業をしている。", person(f))
    f5 = b.m(f"{f}さんの電話番号は{phone_f}。", person(f))
    f6 = b.m(f"来週の{w3}の夜、{f}さんと飲みに行く約束をしている。", person(f), f"date:{w3}")
    b.m(f"{f}さんは猫アレルギーがある。", person(f))
    t1 = b.m(f"{twin}さんは会社の後輩で、{pick(v.FPLACES)}出身。", person(twin))
    t2 = b.m(f"{twin}さんの電話番号は{phone_t}。", person(twin))
    shop = b.m(f"駅前の{f}屋のたい焼きがお気に入り。", "food")
    gm = b.m(f"祖母は{home}の{f}町で一人暮らしをしている。", "grandmother")
    b.q(f"{f}さんとはどういう関係?", f1, f)
    b.q(f"{f}さんにいくら貸した?", f2, "貸し")
    b.q(f"{f}さんの誕生日はいつ?", f3, "誕生日")
    b.q(f"{f}さんの仕事は?", f4, f)
    b.q(f"{f}さんの電話番号を教えて", f5, "電話番号")
    b.q(f"来週の{w3}は何の約束がある?", f6, w3)
    b.q(f"{twin}さんの出身地は?", t1, twin)
    b.q(f"{twin}さんの連絡先は?", t2, twin)
    b.q("お気に入りのたい焼きの店は?", shop, "たい焼き")
    b.q("祖母はどこに住んでいる?", gm, "祖母")
    b.q("昔から付き合いのある仲間は?", f1)
    b.r("person", f"{f}さん", [person(f)], S, n=3, words=(f, twin))
    b.r("person", f"{twin}さん", [person(twin)], S, words=(twin, f))
    b.r("fact", f"{f}さんに貸したお金", [f2], F_, words=(f, "貸"))
    b.r("fact", f"{f}さんの誕生日", [f3], F_, words=(f, "誕生日"))
    b.r("identifier", phone_f, [f5], I_, words=("電話番号", phone_f[:3]))
    b.r("fact", f"{f}さんとの飲みの約束", [f6], F_, n=1, words=(f, "約束"))
    b.r("date", f"来週の{w3}", [f"date:{w3}"], D_, n=1, words=(w3,))

    # Work: the boss and a colleague named alike (斉藤 / 斎藤).
    boss, boss2 = pick(v.BOSSES)
    job = b.m(f"ユーザーは{pick(v.COMPANIES)}でバックエンドエンジニアとして働いている。", "work")
    b1 = b.m(f"ユーザーの上司は{boss}さん。", "work", person(boss))
    b2 = b.m(f"{boss}さんとは週に一度、1on1で面談している。", person(boss))
    b3 = b.m(f"{boss}さんは来月から{other_city}支社に異動する。", person(boss))
    b4 = b.m(f"{boss2}さんは同じチームのデザイナー。", person(boss2))
    b.q("上司は誰?", b1, "上司")
    b.q(f"{boss}さんとの面談はどのくらいの頻度?", b2, "面談")
    b.q(f"{boss}さんの異動先は?", b3, "異動")
    b.q(f"{boss2}さんの担当は?", b4, boss2)
    b.q("勤め先の会社は?", job)
    b.r("person", f"{boss}さん", [person(boss)], S, words=(boss, boss2))
    b.r("person", f"{boss2}さん", [person(boss2)], S, words=(boss2, boss))

    # The nephew (くん) and another child named alike.
    nep, nep2 = pick(v.NEPHEWS)
    n1 = b.m(f"甥の{nep}くんは来年小学生になる。", person(nep))
    n2 = b.m(f"{nep}くんの誕生日プレゼントにレゴを買う予定。", person(nep))
    n3 = b.m(f"{fn[2]}さんの息子の{nep2}くんはサッカーを習っている。", person(fn[2]), person(nep2))
    b.q(f"{nep}くんは来年から何年生?", n1, nep)
    b.q("甥っ子へのプレゼントは?", n2, "プレゼント")
    b.q(f"{nep2}くんの習い事は?", n3, nep2)
    b.r("person", f"{nep}くん", [person(nep)], S, words=(nep,))

    # Family. Traps: 母校, 祖母, 祖父, other people's お母さん / お父さん / お兄さん / 妹さん,
    # the user who does not smoke, a friend who quit.
    sis = pick(v.SISTERS)
    s1 = b.m(f"ユーザーには妹が一人いて、名前は{sis}。", "sister")
    s2 = b.m(f"妹の誕生日は{d1}。", "sister")
    s3 = b.m(f"妹は{pick(v.SISTER_CITIES)}で{pick(v.SISTER_JOBS)}をしている。", "sister")
    s4 = b.m("妹は来年の6月に結婚する予定。", "sister")
    b.m(f"{fn[3]}さんの妹さんは大学で研究をしている。", person(fn[3]))
    r1 = b.m(f"兄は{pick(v.BROTHER_PLACES)}に住んでいて、現地の会社で働いている。", "brother")
    r2 = b.m("兄とは年に一度、お正月にだけ会う。", "brother")
    b.m(f"{fn[4]}さんのお兄さんは医者をしている。", person(fn[4]))
    mo1 = b.m(f"母の誕生日は{bd_mother}。", "mother")
    mo2 = b.m("母は最近、地元の合唱サークルに入った。", "mother")
    mo3 = b.m("母の日にはカーネーションを贈るのが毎年の習慣。", "mother")
    alma = b.m(f"ユーザーの母校は{home}の県立高校。", "school")
    b.m(f"{fn[5]}さんのお母さんは料理教室を開いている。", person(fn[5]))
    fa1 = b.m("父は去年、定年退職した。", "father")
    fa2 = b.m("父はタバコを吸っていて、やめる気はないらしい。", "father")
    fa3 = b.m("父は毎朝、血圧の薬を飲んでいる。", "father")
    nosmoke = b.m("ユーザーはタバコを吸わない。", "body")
    watch = b.m("ユーザーは祖父の形見の腕時計を大切にしている。", "grandfather")
    b.m(f"{fn[6]}さんのお父さんは{pick(v.FPLACES)}で農家をしている。", person(fn[6]))
    b.m(f"{fn[7]}さんは最近タバコをやめた。", person(fn[7]))
    b.q("妹の名前は?", s1, "妹")
    b.q("妹の誕生日はいつ?", s2, "誕生日")
    b.q("妹はどこで働いている?", s3, "妹")
    b.q("妹の結婚はいつ?", s4, "結婚")
    b.q("下のきょうだいについて", s1)
    b.q("兄はどこに住んでいる?", r1, "兄")
    b.q("お正月に会うのは誰?", r2, "正月")
    b.q("母の誕生日は?", mo1, "母")
    b.q("母が入ったサークルは?", mo2, "サークル")
    b.q("母の日に何を贈る?", mo3, "母の日")
    b.q("出身高校は?", alma, "高校")
    b.q("父は今も働いている?", fa1, "父")
    b.q("父はタバコを吸う?", fa2, "タバコ")
    b.q("ユーザーはタバコを吸う?", nosmoke, "タバコ")
    b.q("父は何の薬を飲んでいる?", fa3, "薬")
    b.q("大切にしている腕時計は?", watch, "腕時計")
    b.r("person", "妹", ["sister"], S, n=3, words=("妹",))
    b.r("person", sis, ["sister"], S, n=1, words=("妹",))
    b.r("fact", "妹の誕生日", [s2], F_, words=("妹", "誕生日"))
    b.r("person", "兄", ["brother"], S, words=("兄",))
    b.r("person", "母", ["mother"], S, words=("母",))
    b.r("person", "父", ["father"], S, words=("父",))
    b.r("fact", "父がタバコを吸っていること", [fa2], F_, words=("タバコ",))

    # Appointments. Traps: the check-up last week, the eye exam, the dentist's advice.
    doc = pick(v.DOCTORS)
    a1 = b.m(f"来週の{w1}、{pick(v.TIMES)}に歯医者の予約がある。", "dentist", f"date:{w1}")
    a2 = b.m(f"歯医者の{doc}先生に、親知らずを抜いたほうがいいと言われた。", "dentist")
    a3 = b.m(f"通っている歯医者は{station}駅前の{doc}歯科。", "dentist")
    a4 = b.m(f"来週の{w1}は午後から在宅勤務にする予定。", f"date:{w1}", "work")
    a5 = b.m(f"先週の{w1}に会社の健康診断を受けた。", "health")
    a6 = b.m(f"来週の{w2}に眼科でコンタクトレンズの定期検査を受ける。", "contacts", f"date:{w2}")
    b.m(f"{fn[8]}さんの旦那さんは歯医者をしている。", person(fn[8]))
    b.q("歯医者の予約はいつ?", a1, "歯医者")
    b.q("歯の治療の予定は?", a1, "歯")
    b.q("デンタルクリニックへ行くのはいつ?", a1)
    b.q("親知らずはどうするべき?", a2, "親知らず")
    b.q("通っている歯科はどこ?", a3, "歯科")
    b.q(f"来週の{w1}は何がある?", [a1, a4], w1)
    b.q("在宅勤務にする日は?", a4, "在宅勤務")
    b.q("健康診断はいつ受けた?", a5, "健康診断")
    b.q("眼科の検査はいつ?", a6, "眼科")
    b.r("fact", "歯医者の予約", [a1], F_, n=3, words=("歯医者", "予約"))
    b.r("topic", "歯医者", ["dentist"], S, words=("歯医者", "歯"))
    b.r("date", f"来週の{w1}", [f"date:{w1}"], D_, words=(w1,))
    b.r("fact", "眼科の検査", [a6], F_, words=("眼科", "検査"))
    b.r("date", f"来週の{w2}", [f"date:{w2}"], D_, n=1, words=(w2,))

    # Camera lenses and contact lenses.
    ca1 = b.m(f"ユーザーの趣味はカメラで、{pick(v.CAMERAS)}を使っている。", "camera")
    ca2 = b.m(f"カメラの新しいレンズとして{pick(v.LENSES)}を買おうか迷っている。", "camera")
    ca3 = b.m(f"週末はカメラを持って{pick(v.PHOTO_SPOTS)}へ撮影に行くことが多い。", "camera")
    co1 = b.m("ユーザーは1日使い捨てのコンタクトレンズを使っている。", "contacts")
    co2 = b.m("コンタクトレンズの度数は左右とも-3.25。", "contacts")
    b.q("使っているカメラは?", ca1, "カメラ")
    b.q("買おうか迷っているレンズは?", ca2, "レンズ")
    b.q("撮影によく行く場所は?", ca3, "撮影")
    b.q("写真を撮るときの機材は?", ca1)
    b.q("コンタクトの度数は?", co2, "度数")
    b.q("コンタクトはどんなタイプ?", co1, "コンタクト")
    b.q("視力の矯正はどうしている?", co1)
    b.r("topic", "カメラ", ["camera"], S, words=("カメラ", "レンズ"))
    b.r("topic", "コンタクト", ["contacts"], S, words=("コンタクト", "レンズ"))
    b.r("fact", "コンタクトレンズの度数", [co2], F_, words=("コンタクト", "レンズ"))

    # English words in Japanese memories. Traps: スラックス, ボールパイソン, iPad, 仕事用メール.
    local = pick(v.EMAIL_LOCALS)
    email = f"{local}@gmail.com"
    sl1 = b.m("社内の連絡はSlackで行っている。", "slack", "work")
    sl2 = b.m("Slackの通知は夜10時以降オフにしている。", "slack")
    slacks = b.m("ユーザーは先月、グレーのスラックスを買った。", "clothes")
    py1 = b.m("仕事では主にPythonを使っている。", "python", "work")
    py2 = b.m("週末はPythonの勉強会に参加している。", "python")
    py3 = b.m(f"{month_py}にPython 3エンジニア認定試験を受ける予定。", "python")
    b.m(f"{fn[9]}さんはボールパイソンを飼っている。", person(fn[9]))
    go1 = b.m("予定はGoogleカレンダーで管理している。", "google")
    go2 = b.m(f"Googleアカウントのメールアドレスは{email}。", "google")
    go3 = b.m(f"仕事用のメールアドレスは{local}@{pick(v.WORK_DOMAINS)}。", "work")
    ip1 = b.m("ユーザーはiPhone 15を使っている。", "iphone")
    ip2 = b.m("iPhoneの画面が割れたので、来月修理に出す。", "iphone")
    ipad = b.m("休日はiPadで電子書籍を読んでいる。", "ipad")
    nf1 = b.m("Netflixの月額料金は1490円。", "netflix", "money")
    nf2 = b.m(f"Netflixで{pick(v.DRAMAS)}を見返している。", "netflix")
    b.q("Slackの通知設定は?", sl2, "Slack")
    b.q("社内の連絡手段は?", sl1, "社内")
    b.q("チームのチャットツールは?", sl1)
    b.q("買ったズボンの色は?", slacks, "買った")
    b.q("新調したボトムスは?", slacks)
    b.q("Pythonの勉強はどうしている?", py2, "Python")
    b.q("仕事で使う言語は?", py1, "仕事")
    b.q("得意なプログラミング言語は?", py1)
    b.q("受ける予定の試験は?", py3, "試験")
    b.q("予定の管理方法は?", go1, "管理")
    b.q("Googleのメールアドレスは?", go2, "Google")
    b.q("仕事用のメールアドレスは?", go3, "仕事用")
    b.q("iPhoneの機種は?", ip1, "iPhone")
    b.q("画面の修理はいつ?", ip2, "修理")
    b.q("電子書籍は何で読む?", ipad, "電子書籍")
    b.q("Netflixの料金は?", nf1, "Netflix")
    b.q("最近見返しているドラマは?", nf2, "見返して")
    b.r("mixed", "Slack", ["slack"], S, n=3, words=("Slack", "スラックス"))
    b.r("mixed", "Python", ["python"], S, n=3, words=("Python", "パイソン"))
    b.r("mixed", "Pythonの勉強会", [py2], F_, n=1, words=("Python",))
    b.r("mixed", "Google", ["google"], S, words=("Google",))
    b.r("mixed", "iPhone", ["iphone"], S, words=("iPhone", "iPad"))
    b.r("mixed", "iPhoneの修理", [ip2], F_, n=1, words=("iPhone", "修理"))
    b.r("mixed", "Netflix", ["netflix"], S, words=("Netflix",))
    b.r("identifier", email, [go2], I_, words=(local,))

    # Identifiers. Traps: the passport expiry, a booking number extending the passport
    # number, a phone number one digit off, the office Wi-Fi.
    passport = pick(("TK", "TR", "MZ", "TZ")) + _digits(rng, 7)
    phone_u = f"090-{_digits(rng, 4)}-{_digits(rng, 4)}"
    id1 = b.m(f"パスポート番号は{passport}。", "passport")
    id2 = b.m(
        f"パスポートの有効期限は20{rng.randint(27, 33)}年{rng.randint(1, 12)}月。", "passport"
    )
    id4 = b.m(
        f"自宅のWi-Fiのパスワードは{pick(('sakura', 'umi', 'hoshi'))}{_digits(rng, 4)}。", "wifi"
    )
    b.m(f"会社のWi-Fiのパスワードは{pick(('guest', 'office'))}{_digits(rng, 4)}。", "work")
    id6 = b.m(f"ユーザーの社員番号はE{_digits(rng, 5)}。", "work")
    id7 = b.m(f"ユーザーの携帯番号は{phone_u}。", "phone")
    near = b.m(f"{fn[0]}さんの電話番号は{_one_off(rng, phone_u)}。", person(fn[0]))
    car1 = b.m(f"ユーザーの車は{pick(v.CARS)}。", "car")
    plate = f"{pick(v.PLATE_OFFICES)} 300 {pick(v.PLATE_KANA)} {_digits(rng, 2)}-{_digits(rng, 2)}"
    car2 = b.m(f"車のナンバーは「{plate}」。", "car")
    car3 = b.m(f"車検は{month_car}に予定している。", "car")
    b.q("パスポート番号は?", id1, "パスポート")
    b.q("パスポートはいつまで有効?", id2, "有効")
    b.q("旅券はいつまで使える?", id2)
    b.q("家のWi-Fiのパスワードは?", id4, "Wi-Fi")
    b.q("社員番号は?", id6, "社員番号")
    b.q("携帯の番号は?", id7, "携帯")
    b.q("乗っている車は?", car1, "車")
    b.q("マイカーの色は?", car1)
    b.q("車のナンバーは?", car2, "ナンバー")
    b.q("車検はいつ?", car3, "車検")
    b.r("identifier", "パスポート番号", [id1], I_, words=("パスポート", passport))
    b.r("identifier", passport, [id1], I_, words=(passport,))
    b.r("topic", "パスポート", ["passport"], S, words=("パスポート", passport))
    b.r("identifier", "自宅のWi-Fiのパスワード", [id4], I_, words=("Wi-Fi", "パスワード"))
    b.r("identifier", phone_u, [id7], I_, words=(phone_u[:8],), keep=[near])
    b.r("identifier", "車のナンバー", [car2], I_, words=("車", "ナンバー"))
    b.r("identifier", "社員番号", [id6], I_, words=("番号",))
    b.r("topic", "車", ["car"], S, words=("車",))

    # A trip. Traps: a friend who once lived there; the booking number above.
    dest = pick(v.DESTS)
    flight = f"{pick(v.AIRLINES)}{rng.randint(100, 899)}"
    tr1 = b.m(f"ユーザーは来月、{dest}へ旅行する予定。", "travel")
    tr2 = b.m(f"{dest}行きの便は{flight}。", "travel")
    tr3 = b.m(f"{dest}のホテルの予約番号は{passport}{rng.randint(1, 9)}。", "travel")
    b.m(f"{fn[1]}さんは学生時代に{dest}に住んでいた。", person(fn[1]))
    b.q(f"{dest}旅行はいつ?", tr1, dest)
    b.q("行きの便は?", tr2, "便")
    b.q("ホテルの予約番号は?", tr3, "ホテル")
    b.q("今度の休暇の目的地は?", tr1)
    b.r("topic", f"{dest}旅行", ["travel"], S, words=(dest,))
    b.r("identifier", flight, [tr2], I_, n=1, words=(flight,))

    # Food and health. Traps: 緑茶 beside 紅茶; a friend's allergy.
    allergen, dislike = pick(v.ALLERGENS), pick(v.DISLIKES)
    h1 = b.m(f"ユーザーは{allergen}アレルギーがある。", "allergy")
    h2 = b.m("ユーザーは花粉症で、春は毎日薬を飲んでいる。", "hayfever")
    fo1 = b.m(f"ユーザーの好物は{pick(v.FOODS)}。", "food")
    fo2 = b.m(f"ユーザーは{dislike}が苦手。", "food")
    te1 = b.m("ユーザーはコーヒーより紅茶派。", "tea")
    te2 = b.m(f"紅茶は{pick(v.TEAS)}をストレートで飲むのが好き。", "tea")
    b.m("会社では緑茶を飲むことが多い。", "drink")
    save = b.m("ユーザーは毎月3万円を積み立て投資に回している。", "money")
    b.q("アレルギーはある?", h1, "アレルギー")
    b.q("花粉症の薬は?", h2, "花粉症")
    b.q("好物は何?", fo1, "好物")
    b.q("ごちそうと言えば何?", fo1)
    b.q(f"{dislike}は食べられる?", fo2, dislike)
    b.q("食べられないものは?", [h1, fo2])
    b.q("紅茶の好みは?", te2, "紅茶")
    b.q("コーヒー派?", te1, "コーヒー")
    b.q("積み立ての金額は?", save, "積み立て")
    b.r("fact", f"{allergen}アレルギー", [h1], F_, words=("アレルギー",))
    b.r("topic", "紅茶", ["tea"], S, n=3, words=("紅茶", "茶"))
    b.r("fact", f"{dislike}が苦手なこと", [fo2], F_, n=1, words=(dislike, "苦手"))

    # Hobbies.
    for hobby in rng.sample(list(v.HOBBIES), 3):
        idx = [b.m(text, f"hobby:{hobby}") for text, _, _ in v.HOBBIES[hobby]]
        for i, (_, question, word) in zip(idx, v.HOBBIES[hobby], strict=True):
            b.q(question, i if word else idx, word)
        b.r("topic", hobby, [f"hobby:{hobby}"], S, words=(hobby,))

    # Plans on one date. Traps: the sister's birthday that day, a wedding on 1X月Y日.
    p1 = b.m(f"{d1}の{pick(v.TIMES)}に美容院の予約を入れた。", f"date:{d1}", "salon")
    p2 = b.m(f"{d1}の夜は{fn[3]}さんと食事の約束がある。", f"date:{d1}", person(fn[3]))
    p3 = b.m(f"1{d1}に{fn[4]}さんの結婚式に出席する。", f"date:1{d1}", person(fn[4]))
    b.q("美容院の予約はいつ?", p1, "美容院")
    b.q("ヘアカットはいつ?", p1)
    b.q(f"{d1}の夜の予定は?", p2, d1)
    b.q(f"{fn[4]}さんの結婚式はいつ?", p3, "結婚式")
    b.r("date", d1, [f"date:{d1}"], D_, n=3, words=(d1,))
    b.r("date", f"1{d1}", [f"date:1{d1}"], D_, n=1, words=(d1,), keep=[f"date:{d1}"])
    b.r("fact", "美容院の予約", [p1], F_, words=("美容院", "予約"))

    _fillers(b, fn)


def _fillers(b: _Builder, fn: list[str]) -> None:
    """Memories sharing no subject with a request: other people, the user's everyday life."""
    rng = b.rng
    for name in fn:
        for memory, question, word in rng.sample(v.PERSON_FILLERS, 8):
            fill = {k: rng.choice(p) for k, p in v.PERSON_SLOTS.items()}
            i = b.m(memory.format(n=name, **fill), person(name))
            b.q(question.format(n=name), i, word.format(n=name))
    for memory, question, word in rng.sample(v.USER_FILLERS, 34):
        b.q(question, b.m(memory, "life"), word)
    for template, pool, count in v.NOTES:
        for x in rng.sample(pool, count):
            b.m(template.format(x=x), "life")
    b.r("person", f"{fn[3]}さん", [person(fn[3])], v.SUBJECT_FRAMES, words=(fn[3],))
    b.r("person", f"{fn[4]}さん", [person(fn[4])], v.SUBJECT_FRAMES, n=1, words=(fn[4],))
    b.r("person", f"{fn[5]}さん", [person(fn[5])], v.SUBJECT_FRAMES, n=1, words=(fn[5],))


# -- checks --------------------------------------------------------------------------------

KANJI = re.compile(r"[\u4e00-\u9fff々]")
KATAKANA = re.compile(r"[\u30a0-\u30ff]{2,}")
LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.@-]+")
NAME_LISTS = (*v.FRIENDS, *v.BOSSES, *v.NEPHEWS, v.FILLER_NAMES)


def overlap(a: str, b: str) -> set[str]:
    """What two texts share that could count as a content word: a kanji, a pair of katakana,
    a Latin or digit token."""
    a, b = a.replace("ユーザー", ""), b.replace("ユーザー", "")
    shared = set(KANJI.findall(a)) & set(KANJI.findall(b))
    pairs = [{run[i : i + 2] for run in KATAKANA.findall(t) for i in range(len(run) - 1)}
             for t in (a, b)]  # fmt: skip
    shared |= pairs[0] & pairs[1]
    return shared | set(LATIN.findall(a)) & set(LATIN.findall(b))


def check(ja: JaSet) -> list[str]:
    """Problems with a generated set (empty when it is sound)."""
    problems = []
    by_id = {m.id: m for m in ja.memories}
    texts = Counter(m.text for m in ja.memories)
    problems += [f"duplicate memory {t!r}" for t, n in texts.items() if n > 1]
    for name in {n for names in NAME_LISTS for n in names}:
        pattern = re.compile(rf"(?<![\u4e00-\u9fff々]){name}(さん|くん)")
        for m in ja.memories:
            if pattern.search(m.text) and person(name) not in m.about:
                problems.append(f"{m.id} names {name} but is not about them: {m.text}")
    for q in ja.questions:
        if not q.targets or any(t not in by_id for t in q.targets):
            problems.append(f"{q.id} has unknown targets")
            continue
        for t in q.targets:
            text = by_id[t].text
            if q.word and (q.word not in q.text or q.word not in text):
                problems.append(f"{q.id} {q.text}: {q.word!r} not in both ({text})")
            if not q.word and overlap(q.text, text):
                problems.append(f"{q.id} {q.text} shares {overlap(q.text, text)} with {text}")
    for r in ja.requests:
        if not r.targets:
            problems.append(f"{r.id} {r.text}: no target")
        if r.targets & r.keep:
            problems.append(f"{r.id} {r.text}: targets and keep overlap")
        if not (r.targets | r.keep) <= by_id.keys():
            problems.append(f"{r.id}: unknown ids")
    problems += [f"duplicate request {t!r}" for t, n in Counter(r.text for r in ja.requests).items()
                 if n > 1]  # fmt: skip
    return problems


@cache
def build(seed: int = 0) -> JaSet:
    b = _Builder(random.Random(seed))
    _world(b)
    ja = b.finish()
    problems = check(ja)
    if problems:
        raise ValueError("ja_cases: " + "; ".join(problems))
    return ja


def memories(seed: int = 0) -> list[JaMemory]:
    return list(build(seed).memories)


def questions(seed: int = 0) -> list[JaQuestion]:
    return list(build(seed).questions)


def requests(seed: int = 0) -> list[JaRequest]:
    return list(build(seed).requests)


def _script(word: str) -> str:
    if re.search(r"[A-Za-z]", word):
        return "mixed" if re.search(r"[^\x00-\x7f]", word) else "latin"
    return "kanji" if all(KANJI.match(c) for c in word) else "kana/kanji"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    ja = build(args.seed)
    text = {m.id: m.text for m in ja.memories}
    rng = random.Random(args.seed)
    print(f"seed {args.seed}: {len(ja.memories)} memories, {len(ja.questions)} questions, "
          f"{len(ja.requests)} requests; checks passed")  # fmt: skip
    sharing = [q for q in ja.questions if q.shares_content_word]
    lengths = Counter(min(len(q.word), 3) for q in sharing)
    scripts = Counter(_script(q.word) for q in sharing)
    print(f"\nquestions: {len(sharing)} share a content word, {len(ja.questions) - len(sharing)} "
          f"do not; word length 1/2/3+: {lengths[1]}/{lengths[2]}/{lengths[3]}; "
          f"scripts: {dict(scripts)}")  # fmt: skip
    for q in rng.sample(ja.questions, args.examples):
        print(f"  {q.id} {q.text}  [{q.word or '-'}] -> " + " | ".join(text[t] for t in q.targets))
    kinds = Counter(r.kind for r in ja.requests)
    print(f"\nrequests per kind: {dict(kinds)}")
    for kind in kinds:
        print(f"\n== {kind}")
        for r in rng.sample([r for r in ja.requests if r.kind == kind], args.examples):
            print(f"  {r.id} 「{r.text}」")
            for t in sorted(r.targets):
                print(f"      forget {t} {text[t]}")
            for t in sorted(r.keep):
                print(f"      keep   {t} {text[t]}")


if __name__ == "__main__":
    main()
