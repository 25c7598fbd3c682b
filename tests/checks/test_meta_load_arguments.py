"""assert_meta_load's arguments: a checkpoint path that does not exist is a usage error
naming the path, raised before any model is built."""

from __future__ import annotations

from pathlib import Path

import pytest
from torch import nn

import torchcheck as tc


def test_a_missing_checkpoint_file_is_a_usage_error_naming_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"assert_meta_load: the checkpoint 'model\.pt' does not exist") as raised:
        tc.assert_meta_load(lambda: nn.Linear(2, 2), "model.pt")
    assert str(tmp_path / "model.pt") in str(raised.value)
    assert "torch.save(model.state_dict()" in str(raised.value)


def test_a_directory_given_as_the_checkpoint_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a file"):
        tc.assert_meta_load(lambda: nn.Linear(2, 2), tmp_path)
