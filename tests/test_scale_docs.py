"""docs/scale.md's recipes run as written.

The local recipe is taken from the page and run by bash against the sample web (over TLS,
the network options in the ``AGENTDEX_*`` variables it names); the Kubernetes manifests are
validated against the Kubernetes API's OpenAPI schema through the models of the
``kubernetes`` Python client 37 (pydantic models generated from that schema: every field's
name and type, and the required ones), strictly: an unknown field is an error, as ``kubectl
apply --validate=strict`` makes it; the Slurm scripts parse as bash and count the array as the
shard count says.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
import yaml

from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env

MODELS = {
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("batch/v1", "Job"): "V1Job",
}
DOC = Path(__file__).resolve().parent.parent / "docs" / "scale.md"


def blocks(section: str, language: str) -> list[str]:
    """The ``language`` code blocks of the page's ``## section``."""
    text = DOC.read_text("utf-8").split(f"\n## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def validate(doc: dict) -> list[str]:
    """What in the manifest document ``doc`` the Kubernetes schema of its kind does not allow
    (the client's pydantic model of it, strict: no unknown field, no string for a number)."""
    # A checkout installed before the test extra gained the client skips, saying how to get it.
    k8s = pytest.importorskip("kubernetes.client.models", reason="pip install -e '.[test]' again (kubernetes 37)")
    model = getattr(k8s, MODELS[(doc.get("apiVersion"), doc.get("kind"))])
    try:
        model.model_validate(doc, strict=True)
    except pydantic.ValidationError as exc:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
    return []


def manifests() -> list[dict]:
    return [doc for block in blocks("Kubernetes", "yaml") for doc in yaml.safe_load_all(block)]


def test_the_kubernetes_manifests_are_valid_against_the_kubernetes_schema():
    docs = manifests()
    kinds = [(d["apiVersion"], d["kind"]) for d in docs]
    assert kinds.count(("batch/v1", "Job")) == 2 and ("v1", "ConfigMap") in kinds
    for doc in docs:
        assert validate(doc) == []
    sweep = next(d for d in docs if d["kind"] == "Job" and d["spec"].get("completionMode") == "Indexed")
    command = " ".join(sweep["spec"]["template"]["spec"]["containers"][0]["args"])
    assert f"--shard auto/{sweep['spec']['completions']}" in command and "$JOB_COMPLETION_INDEX" in command


def test_the_validator_finds_a_misspelt_field_a_wrong_type_and_a_missing_required_one():
    job = next(d for d in manifests() if d["kind"] == "Job")
    spec = job["spec"]["template"]["spec"]
    broken = {**job, "spec": {**job["spec"], "completionMod": "Indexed", "parallelism": "4"}}
    broken["spec"]["template"] = {"spec": {**spec, "containers": None}}
    errors = validate(broken)
    assert "spec.completionMod: Extra inputs are not permitted" in errors
    assert "spec.parallelism: Input should be a valid integer" in errors
    assert any(e.startswith("spec.template.spec.containers") for e in errors)


@pytest.mark.slow  # runs bash -n as a subprocess
def test_the_slurm_scripts_parse_and_count_the_array_from_0_to_n_minus_1():
    script, submit = blocks("Slurm", "sh")
    for text in (script, submit):
        assert subprocess.run(["bash", "-n"], input=text, text=True, timeout=30).returncode == 0
    first, last = map(int, re.search(r"--array=(\d+)-(\d+)", script).groups())  # type: ignore[union-attr]
    assert (first, f"--shard auto/{last + 1}") == (0, re.search(r"--shard auto/\d+", script)[0])  # type: ignore[index]
    assert "afterok:" in submit and "agentdex merge all.db shard-*.db" in submit


@pytest.mark.slow
def test_the_local_recipe_runs_as_written(tmp_path):
    (recipe,) = blocks("On one machine", "sh")
    with SampleWeb(synthetic=10) as web:
        hosts = list(web.synthetic.hosts)
        (tmp_path / "s.txt").write_text("\n".join(hosts) + "\n")
        (tmp_path / "empty.toml").write_text("")
        args = web.cli_args()
        env = {
            **cli_env(),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "AGENTDEX_CONNECT_TO": " ".join(v for k, v in zip(args, args[1:], strict=False) if k == "--connect-to"),
            "AGENTDEX_CA_BUNDLE": args[args.index("--ca-bundle") + 1],
            "AGENTDEX_CONFIG": str(tmp_path / "empty.toml"),  # no config of the machine's user
        }
        done = subprocess.run(
            ["bash", "-c", recipe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.glob("shard-*.db")) == [f"shard-{i}.db" for i in range(4)]
    with sqlite3.connect(tmp_path / "all.db") as conn:
        listed = sorted(row[0] for row in conn.execute("SELECT origin FROM listings WHERE status = 'listed'"))
    assert listed == sorted(hosts)
