raise RuntimeError('broken plugin')
