import numpy as np

from wide_deep import WideDeep

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X_wide = rng.random((1000, 20), dtype=np.float32)
    X_deep = rng.random((1000, 12), dtype=np.float32)
    target = rng.integers(0, 3, size=1000)
    model = WideDeep(wide_dim=20, deep_dim=12, pred_dim=3)
    model.compile(method="multiclass")
    model.fit(X_wide[:800], X_deep[:800], target[:800], X_val=(X_wide[800:], X_deep[800:], target[800:]))
    print(model.predict_proba(X_wide[:5], X_deep[:5]))
