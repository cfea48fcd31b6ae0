"""The tokens layer: vocabulary, object types, renaming, PlanGPT sequences."""

import json
import random

import numpy as np
import pytest

from genplan.domains import DOMAINS, domain_file
from genplan.errors import GenplanError
from genplan.pddl_io import parse_domain, parse_problem, problem_to_pddl
from genplan.stages.generators import generate_size
from genplan.tokens import (
    SPECIALS,
    ActionParser,
    Renaming,
    SequenceError,
    Vocabulary,
    decode_plan,
    encode_plan,
    encode_problem,
    make_example,
    object_types,
    pool_sizes,
    type_counts,
)

SIZES = {"blocks": 4, "gripper": 3, "logistics": 2, "visitall": 6}
EXPECTED_TYPES = {  # type -> count in the generated problem of SIZES
    "blocks": {"object": 4},
    "gripper": {"ball": 3, "gripper": 2, "room": 2},
    "logistics": {"airplane": 1, "airport": 2, "city": 2, "location": 2, "package": 4, "truck": 2},
    "visitall": {"place": 6},
}


def _problem(tmp_path, domain, size=None, seed=1):
    info = parse_domain(domain_file(domain))
    p = generate_size(domain, size or SIZES[domain], random.Random(seed))
    path = tmp_path / f"{domain}-{size}-{seed}.pddl"
    path.write_text(problem_to_pddl(p.stem, info.name, p.objects, p.init, p.goal))
    return info, parse_problem(path, info)


@pytest.fixture
def gripper(tmp_path):
    info, task = _problem(tmp_path, "gripper")
    types = object_types(info, task)
    return info, task, types, Vocabulary.for_domain(info, {"ball": 5, "room": 3, "gripper": 2})


def test_vocabulary_is_deterministic_and_round_trips_through_json():
    info = parse_domain(domain_file("logistics"))
    a = Vocabulary.for_domain(info, {"truck": 2, "package": 3})
    b = Vocabulary(info.name, dict(reversed(list(info.predicates.items()))), info.actions, {"package": 3, "truck": 2})
    assert a.tokens == b.tokens and a.tokens[:7] == SPECIALS and a.pad_id == 0
    assert a.tokens[-5:] == ("package0", "package1", "package2", "truck0", "truck1")
    c = Vocabulary.from_dict(json.loads(json.dumps(a.to_dict())))
    assert c == a and c.tokens == a.tokens and c.id("truck1") == a.id("truck1") and c.per_type
    g = Vocabulary.for_domain(info, 4)
    assert g.object_tokens() == ("o0", "o1", "o2", "o3") and Vocabulary.from_dict(g.to_dict()) == g
    assert (a.start_id, a.goal_id, a.action_id, a.end_id, a.mask_id, a.sep_id) == (1, 2, 3, 4, 5, 6)
    assert a.ids(["<end>", "at", "drive-truck"]) == [4, a.id("at"), a.id("drive-truck")]
    kinds = [(a.is_special(i), a.is_predicate(i), a.is_action(i), a.is_object(i)) for i in range(len(a))]
    assert all(sum(k) == 1 for k in kinds) and len(a) == 7 + len(info.predicates) + len(info.actions) + 5
    assert a.arity("drive-truck") == 4 and a.arity(a.id("in-city")) == 2
    assert a.object_tokens("truck") == ("truck0", "truck1") and a.object_tokens("city") == ()
    with pytest.raises(GenplanError, match="'zebra' is not in the vocabulary"):
        a.id("zebra")
    with pytest.raises(GenplanError, match="outside the vocabulary"):
        a.token(len(a))
    with pytest.raises(GenplanError, match="neither a predicate nor an action"):
        a.arity("truck0")
    with pytest.raises(GenplanError, match="one global object pool"):
        g.object_tokens("truck")
    tampered = {**a.to_dict(), "tokens": list(reversed(a.tokens))}
    with pytest.raises(GenplanError, match="other tokens"):
        Vocabulary.from_dict(tampered)
    with pytest.raises(GenplanError, match="name two things"):
        Vocabulary("d", {"o1": 1}, {}, 3)
    blocks = parse_domain(domain_file("blocks"))
    with pytest.raises(GenplanError, match="for domain 'logistics'"):
        a.check_domain(blocks)


@pytest.mark.parametrize("domain", DOMAINS)
def test_object_types_of_the_shipped_domains(tmp_path, domain):
    info, task = _problem(tmp_path, domain)
    types = object_types(info, task)
    assert set(types) == set(task.objects) and type_counts(types) == EXPECTED_TYPES[domain]
    assert object_types(domain_file(domain), task) == types
    if domain == "logistics":  # airports are locations too: the lexicographically first wins
        assert all(t == "airport" for o, t in types.items() if ("airport", o) in task.statics)


def test_object_types_of_a_typed_domain(tmp_path):
    dom = tmp_path / "typed.pddl"
    dom.write_text("(define (domain typed) (:requirements :strips :typing) (:types ball room - object "
                   "heavy - ball) (:predicates (at ?b - ball ?r - room)) (:action m :parameters (?b - ball "
                   "?r - room) :precondition (at ?b ?r) :effect (not (at ?b ?r))))")
    prob = tmp_path / "p.pddl"
    prob.write_text("(define (problem p) (:domain typed) (:objects b1 b2 - heavy r1 - room x) "
                    "(:init (at b1 r1)) (:goal (at b2 r1)))")
    info = parse_domain(dom)
    task = parse_problem(prob, info)
    assert object_types(info, task) == {"b1": "heavy", "b2": "heavy", "r1": "room", "x": "object"}
    with pytest.raises(GenplanError, match="declares types"):
        object_types(info, task.__class__(**{**task.__dict__, "path": None}))
    assert pool_sizes([{"a": "ball"}, {"a": "ball", "b": "ball", "r": "room"}]) == {"ball": 2, "room": 1}


def test_renaming_is_a_seeded_bijection_that_keeps_types(gripper):
    info, task, types, vocab = gripper
    maps = []
    for seed in (0, 0, 1):
        r = Renaming.random(task.objects, types, vocab, np.random.default_rng(seed), per_type=True)
        assert set(r.forward) == set(task.objects) and len(set(r.forward.values())) == len(task.objects)
        assert all(r.inverse[r.forward[o]] == o for o in task.objects)
        assert all(vocab.object_type(tok) == types[o] for o, tok in r.forward.items())
        maps.append(dict(r.forward))
    assert maps[0] == maps[1] and maps[0] != maps[2]
    shuffled = list(reversed(task.objects))  # the draw depends on the set of objects only
    assert dict(Renaming.random(shuffled, types, vocab, 0).forward) == maps[0]
    ident = Renaming.identity_order(task.objects, types, vocab)
    assert dict(ident.forward) == {"ball1": "ball0", "ball2": "ball1", "ball3": "ball2", "left": "gripper0",
                                   "right": "gripper1", "rooma": "room0", "roomb": "room1"}
    glob = Vocabulary.for_domain(info, 9)
    r = Renaming.random(task.objects, None, glob, 3, per_type=False)
    assert sorted(r.inverse) == sorted(r.forward.values()) and set(r.inverse) <= set(glob.object_tokens())
    assert Renaming.identity_order(task.objects, None, glob).forward["ball1"] == "o0"
    assert r.restore_action(["pick", *r.rename_atom(("pick", "ball2", "rooma", "left"))[1:]]) == \
        ("pick", "ball2", "rooma", "left")
    with pytest.raises(GenplanError, match="one global object pool"):
        Renaming.random(task.objects, types, glob, 0, per_type=True)
    with pytest.raises(GenplanError, match="not one of the 7 objects"):
        r.rename("ball9")


def test_too_many_objects_are_refused_naming_count_and_type(tmp_path, gripper):
    info, _, _, vocab = gripper
    _, big = _problem(tmp_path, "gripper", size=7)
    types = object_types(info, big)
    with pytest.raises(GenplanError) as err:
        Renaming.identity_order(big.objects, types, vocab, path=big.path)
    assert "problem has 7 'ball' objects, more than the 5 ball tokens of the model's vocabulary" in str(err.value)
    assert err.value.path == big.path
    with pytest.raises(GenplanError, match="problem has 11 objects, more than the 10 object tokens"):
        Renaming.random(big.objects, None, Vocabulary.for_domain(info, 10), 0)


@pytest.mark.parametrize("domain", DOMAINS)
def test_fast_downward_plan_survives_tokenising_and_detokenising(tmp_path, domain):
    from genplan.stages.fast_downward import run_fast_downward

    info, task = _problem(tmp_path, domain)
    res = run_fast_downward(domain_file(domain), task.path, "astar_lmcut", 60, 2048)
    assert res.plan, res.reason
    plan = [tuple(a) for a in res.plan]
    types = object_types(info, task)
    for per_type in (True, False):
        vocab = Vocabulary.for_domain(info, pool_sizes([types], 3) if per_type else 20)
        ren = Renaming.random(task.objects, types, vocab, np.random.default_rng(7), per_type=per_type)
        prompt = encode_problem(task.init, task.goal, ren, vocab, statics=task.statics)
        ids, mask = make_example(prompt, encode_plan(plan, ren, vocab))
        assert decode_plan(ids[len(prompt):], ren, vocab) == plan
        assert decode_plan(ids + [vocab.pad_id] * 3, ren, vocab) == plan  # a whole, padded sequence
        n_init = len(task.init | task.statics)
        assert prompt.count(vocab.goal_id) == 1
        assert sum(vocab.is_predicate(i) for i in prompt) == n_init + len(task.goal)


def test_loss_mask_covers_exactly_the_plan_and_end(gripper):
    _, task, types, vocab = gripper
    ren = Renaming.identity_order(task.objects, types, vocab)
    prompt = encode_problem(task.init, task.goal, ren, vocab, statics=task.statics)
    plan = [("pick", "ball1", "rooma", "left"), ("move", "rooma", "roomb")]
    ids, mask = make_example(prompt, encode_plan(plan, ren, vocab))
    assert prompt[0] == vocab.start_id and prompt[-1] == vocab.action_id and ids[-1] == vocab.end_id
    assert [i for i, m in zip(ids, mask) if m] == ids[len(prompt):] and len(ids[len(prompt):]) == 4 + 3 + 1
    assert not any(mask[:len(prompt)]) and all(mask[len(prompt):])
    assert vocab.tokens_of(ids[len(prompt):]) == ["pick", "ball0", "room0", "gripper0",
                                                  "move", "room0", "room1", "<end>"]
    empty_ids, empty_mask = make_example(prompt, encode_plan([], ren, vocab))
    assert empty_ids[-1] == vocab.end_id and empty_mask.count(True) == 1
    with pytest.raises(SequenceError, match="ends with <action>"):
        make_example(prompt[:-1], [vocab.end_id])


def _atoms(ids, vocab):
    out, i = [], 0
    while i < len(ids):
        n = 1 + vocab.arity(ids[i])
        out.append(tuple(ids[i:i + n]))
        i += n
    return out


def test_shuffled_order_is_a_permutation_of_the_canonical_atoms(tmp_path):
    info, task = _problem(tmp_path, "visitall", size=9)
    vocab = Vocabulary.for_domain(info, {"place": 12})
    ren = Renaming.random(task.objects, object_types(info, task), vocab, 5)
    canon = encode_problem(task.init, task.goal, ren, vocab, statics=task.statics)
    assert canon == encode_problem(set(task.init), list(task.goal)[::-1], ren, vocab, statics=set(task.statics))
    g = canon.index(vocab.goal_id)
    canon_init = _atoms(canon[1:g], vocab)
    assert canon_init == sorted(canon_init)
    orders = set()
    for seed in (1, 2):
        sh = encode_problem(task.init, task.goal, ren, vocab, order="shuffled", rng=np.random.default_rng(seed),
                            statics=task.statics)
        gs = sh.index(vocab.goal_id)
        assert len(sh) == len(canon) and sh[0] == vocab.start_id and sh[-1] == vocab.action_id
        assert sorted(_atoms(sh[1:gs], vocab)) == canon_init
        assert sorted(_atoms(sh[gs + 1:-1], vocab)) == _atoms(canon[g + 1:-1], vocab)
        orders.add(tuple(sh))
    assert len(orders) == 2 and tuple(canon) not in orders
    with pytest.raises(ValueError, match="needs a numpy Generator"):
        encode_problem(task.init, task.goal, ren, vocab, order="shuffled")
    with pytest.raises(GenplanError, match="'nowhere' is not in the vocabulary"):
        encode_problem({("nowhere", task.objects[0])}, task.goal, ren, vocab)
    with pytest.raises(SequenceError, match="has 2 arguments, 'visited' takes 1"):
        encode_problem({("visited", task.objects[0], task.objects[1])}, task.goal, ren, vocab)


def test_malformed_plan_sequences_raise_clear_errors(gripper):
    _, task, types, vocab = gripper
    ren = Renaming.identity_order(task.objects, types, vocab)
    ids = lambda *toks: vocab.ids(toks)  # noqa: E731
    assert decode_plan(ids("move", "room0", "room1", "<end>", "ball4"), ren, vocab) == [("move", "rooma", "roomb")]
    cases = [
        (ids("move", "room0", "<end>"), r"'<end>' at plan position 2 where argument 2 of 'move'.*takes 2"),
        (ids("move", "room0"), "end inside action 'move room0' .2 arguments expected"),
        (ids("room0", "<end>"), "'room0' at plan position 0 where an action schema or <end> is expected"),
        (ids("move", "move", "room0"), "'move' at plan position 1 where argument 1 of 'move'"),
        (ids("at", "ball0", "room0", "<end>"), "'at' at plan position 0 where an action schema"),
        (ids("move", "room0", "room2", "<end>"), "'room2' at plan position 2 stands for no object of the problem"),
        (ids("<pad>", "<end>"), "'<pad>' at plan position 0"),
    ]
    for seq, message in cases:
        with pytest.raises(SequenceError, match=message):
            decode_plan(seq, ren, vocab)
    assert issubclass(SequenceError, GenplanError) and issubclass(SequenceError, ValueError)


def test_action_parser_accepts_exactly_a_schema_and_its_arity_in_objects(gripper):
    _, task, types, vocab = gripper
    ren = Renaming.identity_order(task.objects, types, vocab)
    p = ActionParser(vocab, ren)
    schemas = set(vocab.action_ids())
    used = {vocab.id(t) for t in ren.inverse}
    assert p.expects == "schema" and set(p.allowed_ids()) == schemas | {vocab.end_id} and not p.complete
    p.push(vocab.id("pick"))
    for k in range(3):
        assert p.expects == "object" and set(p.allowed_ids()) == used and not p.complete
        assert p.allowed_mask().sum() == len(used) and not p.allowed_mask()[vocab.id("ball4")]
        p.push(vocab.id(["ball0", "room0", "gripper0"][k]))
    assert p.complete and p.actions == [tuple(vocab.ids(["pick", "ball0", "room0", "gripper0"]))]
    assert set(p.allowed_ids()) == schemas | {vocab.end_id}
    p.push(vocab.id("move"))
    assert p.pending and vocab.end_id not in p.allowed_ids()
    with pytest.raises(SequenceError):
        p.push(vocab.end_id)
    p.feed(vocab.ids(["room0", "room1", "<end>"]))
    assert p.ended and p.allowed_ids() == () and len(p.actions) == 2
    with pytest.raises(SequenceError, match="after <end>"):
        p.push(vocab.id("move"))
    free = ActionParser(vocab, allow_end=False)  # no renaming: every object token; no <end>
    assert set(free.allowed_ids()) == schemas
    free.push(vocab.id("move"))
    assert set(free.allowed_ids()) == set(vocab.object_ids())
    tiny = Vocabulary("d", {"p": 0}, {"noop": 0, "go": 1}, 2)  # a schema without parameters is complete at once
    t = ActionParser(tiny)
    t.push(tiny.id("noop"))
    assert t.complete and t.expects == "schema"


def test_an_action_named_as_a_predicate_gets_its_own_token_and_a_floortile_plan_round_trips(tmp_path):
    """Floortile's up/down/left/right are predicates and action schemas: the schemas take `name:action`
    tokens, so no token names two things, and a Fast Downward plan survives encoding and decoding."""
    from genplan.stages.fast_downward import run_fast_downward
    from genplan.tokens.vocab import ACTION_MARK

    info = parse_domain(domain_file("floortile"))
    assert {"up", "down", "left", "right"} <= set(info.predicates) & set(info.actions)
    p = generate_size("floortile", 4, random.Random(3))
    path = tmp_path / "ft.pddl"
    path.write_text(problem_to_pddl(p.stem, info.name, p.objects, p.init, p.goal, p.types))
    task = parse_problem(path, info)
    vocab = Vocabulary.for_domain(info, 40)
    assert len(set(vocab.tokens)) == len(vocab.tokens)
    assert vocab.action_token("down") == f"down{ACTION_MARK}" and vocab.action_token("paint-up") == "paint-up"
    assert vocab.is_predicate(vocab.id("down")) and vocab.is_action(vocab.id(f"down{ACTION_MARK}"))
    assert vocab.arity(f"down{ACTION_MARK}") == 3 and vocab.arity("down") == 2
    assert Vocabulary.from_dict(json.loads(json.dumps(vocab.to_dict()))) == vocab
    res = run_fast_downward(domain_file("floortile"), task.path, "lama_first", 60, 2048)
    plan = [tuple(a) for a in res.plan]
    assert any(a[0] in info.predicates for a in plan), "the test wants a move action"
    ren = Renaming.random(task.objects, object_types(info, task), vocab, np.random.default_rng(1))
    ids = encode_plan(plan, ren, vocab)
    assert decode_plan(ids + [vocab.end_id], ren, vocab) == plan
    with pytest.raises(SequenceError, match="token .down. at plan position 0 where an action schema"):  # the predicate's token is no action
        decode_plan([vocab.id("down")] + ids[1:4] + [vocab.end_id], ren, vocab)


def test_plangpt_encodes_cases_of_a_typed_domain_with_one_global_pool(tmp_path):
    """A trajectory case carries no problem file: with one global pool PlanGPT needs no types."""
    from genplan.datasets.examples import Case
    from genplan.models.plangpt import data

    info = parse_domain(domain_file("floortile"))
    p = generate_size("floortile", 4, random.Random(3))
    path = tmp_path / "ft.pddl"
    path.write_text(problem_to_pddl(p.stem, info.name, p.objects, p.init, p.goal, p.types))
    task = parse_problem(path, info)
    case = Case(task.name, tuple(task.objects), frozenset(task.init), frozenset(task.statics), frozenset(task.goal), ())
    ids, masks, dropped = data.encode([case], Vocabulary.for_domain(info, 40), info, np.random.default_rng(0),
                                      False, "canonical", 2048)
    assert len(ids) == 1 and dropped == 0
    with pytest.raises(GenplanError, match="declares types"):  # per-type pools need the problem file's types
        data.encode([case], Vocabulary.for_domain(info, {"robot": 4, "tile": 30, "color": 4}), info,
                    np.random.default_rng(0), True, "canonical", 2048)
