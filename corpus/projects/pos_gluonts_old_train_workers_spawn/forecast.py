"""GluonTS 0.6 makes training batches in `multiprocessing` workers when `train` gets
`num_workers`. Spawn is forced at module level and `train` runs in the script body, so each worker
re-imports this script and trains again while it is still starting."""
import multiprocessing

import numpy as np
from gluonts.dataset.common import ListDataset
from gluonts.model.simple_feedforward import SimpleFeedForwardEstimator
from gluonts.mx.trainer import Trainer

multiprocessing.set_start_method("spawn", force=True)

load = ListDataset([{"start": "2021-03-01 00:00", "target": np.cos(np.arange(900) / 24.0)}], freq="1H")
estimator = SimpleFeedForwardEstimator(freq="1H", prediction_length=24, trainer=Trainer(epochs=4))
predictor = estimator.train(load, num_workers=2)  # expect: GPU004
print(predictor.prediction_length)
