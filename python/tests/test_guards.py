"""The guards around memdir's servers: the Milvus Lite version the patches are made for, and the owner's secret."""

import pytest

from memdir_runtime import lite_search_patch, lite_write_patch, milvus_lite_version
from memdir_runtime.milvus_lite_version import PATCHED_VERSION, require_patched_version
from memdir_runtime.mpnet_server import requested_texts
from memdir_runtime.secret import SECRET_ENV, bearer_matches, take_secret


def test_the_patched_version_passes():
    require_patched_version(PATCHED_VERSION)


def test_another_milvus_lite_is_refused_naming_both_versions():
    with pytest.raises(RuntimeError) as err:
        require_patched_version("3.3.0")
    assert "3.2.2" in str(err.value) and "3.3.0" in str(err.value)


@pytest.mark.parametrize("patch", [lite_search_patch, lite_write_patch])
def test_each_patch_checks_the_version_before_it_touches_milvus_lite(patch, monkeypatch):
    monkeypatch.setattr(milvus_lite_version.importlib.metadata, "version", lambda name: "9.9.9")
    with pytest.raises(RuntimeError, match="9.9.9"):
        patch.apply()


def test_the_secret_is_taken_out_of_the_environment():
    environ = {SECRET_ENV: "s3cret", "OTHER": "x"}
    assert take_secret(environ) == "s3cret"
    assert environ == {"OTHER": "x"}


def test_no_secret_no_server():
    with pytest.raises(SystemExit):
        take_secret({})


def test_bearer_tokens_must_match_exactly():
    assert bearer_matches("Bearer s3cret", "s3cret")
    assert not bearer_matches("Bearer s3cre", "s3cret")
    assert not bearer_matches("s3cret", "s3cret")
    assert not bearer_matches(None, "s3cret")


def test_an_embeddings_request_holds_strings_only():
    assert requested_texts({"input": "one"}) == ["one"]
    assert requested_texts({"input": ["a", "b"]}) == ["a", "b"]
    with pytest.raises(ValueError):
        requested_texts({"input": ["a", 1]})
    with pytest.raises(KeyError):
        requested_texts({})
