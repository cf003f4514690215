from transformers import PyTorchBenchmark, PyTorchBenchmarkArguments

benchmark_args = PyTorchBenchmarkArguments(
    models=["distilroberta-base"],
    batch_sizes=[8],
    sequence_lengths=[16, 64, 256],
    save_to_csv=True,
    log_filename="bench.log",
    env_info_csv_file="env.csv",
)
benchmark = PyTorchBenchmark(benchmark_args)
results = benchmark.run()
print(results)
