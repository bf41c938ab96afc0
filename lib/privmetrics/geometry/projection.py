"""Two-dimensional FAMD projection, fitted on the real data ("PROJECT(Y, n_dim = 2)" of the paper).

The paper's NNDR, DCR and Hidden Rate (Algorithms 14, 16, 20) follow the avatar code of
Guillaudeux et al., which projects with saiph's factor analysis of mixed data (FAMD) and then
measures Euclidean distances between the coordinates. FAMD is a PCA of a matrix in which

* each numerical column is centred and divided by its standard deviation, and
* each category k of a categorical column becomes an indicator divided by ``sqrt(p_k)`` (``p_k``
  its share in the real data) and centred by subtracting ``sqrt(p_k)``,

so that numerical and categorical columns weigh alike (Pagès 2004). The model (means, standard
deviations, proportions, principal axes) is fitted on the real data and applied unchanged to the
synthetic data, as saiph's ``fit_transform`` / ``transform`` do. A category unseen in the real data
contributes an all-zero indicator block before centring.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privmetrics.data.schema import Schema
from privmetrics.geometry.encoding import one_hot


@dataclass
class FAMD:
    schema: Schema
    n_components: int = 2

    def _matrix(self, frame: pd.DataFrame) -> np.ndarray:
        num = (frame[self.schema.numerical].to_numpy(float) - self.mean_) / self.std_
        blocks = [num]
        for col, (cats, root_p) in self.categories_.items():
            blocks.append(one_hot(frame[col], cats) / root_p - root_p)
        return np.hstack(blocks)

    def fit(self, real: pd.DataFrame) -> FAMD:
        num = real[self.schema.numerical].to_numpy(float)
        self.mean_ = num.mean(axis=0)
        std = num.std(axis=0)
        self.std_ = np.where(std > 0, std, 1.0)
        self.categories_ = {}
        for col in self.schema.categorical:
            shares = real[col].value_counts(normalize=True).sort_index()
            self.categories_[col] = (shares.index.to_numpy(), np.sqrt(shares.to_numpy()))
        matrix = self._matrix(real)
        self.center_ = matrix.mean(axis=0)
        # principal axes from the SVD of the centred matrix (deterministic, no random start)
        _, singular, axes = np.linalg.svd(matrix - self.center_, full_matrices=False)
        signs = np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])  # fix SVD sign
        self.components_ = (axes * signs[:, None])[: self.n_components]
        self.explained_variance_ratio_ = (singular**2 / (singular**2).sum())[: self.n_components]
        return self

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        return (self._matrix(frame) - self.center_) @ self.components_.T

    def fit_transform(self, real: pd.DataFrame) -> np.ndarray:
        return self.fit(real).transform(real)
