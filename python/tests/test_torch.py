"""PyTorch tensors on a GPU: skipped, with the reason, where there is none."""

import pytest

import tilec

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device for PyTorch", allow_module_level=True)


def test_vector_add_on_the_current_stream(examples):
    add = tilec.compile(f"{examples}/vector_add.tile", target="sm_80")
    x = torch.randn(10001, device="cuda")
    y = torch.randn(10001, device="cuda")
    z = torch.full_like(x, float("nan"))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        add(x, y, z)  # queued on s, PyTorch's current stream
    s.synchronize()
    torch.testing.assert_close(z, x + y)


def test_u4_gemm_with_torch_tensors(examples):
    M, K, N, G = 4, 512, 256, 128
    k = tilec.compile(f"{examples}/gemm_wq.tile", target="sm_80", T="u4", G=G)
    codes = torch.randint(0, 16, (K, N), dtype=torch.int32)
    w = torch.from_numpy(tilec.pack_codes(codes.numpy(), 4)).cuda()
    a = torch.randn(M, K, dtype=torch.float16, device="cuda")
    s = (torch.rand(K // G, N, device="cuda") * 0.05 + 0.01).half()
    z = torch.randint(0, 16, (K // G, N), device="cuda").half()
    c = torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda")
    k(a, w, s, z, c)
    torch.cuda.synchronize()
    deq = (codes.cuda().double() - z.double().repeat_interleave(G, 0)) * s.double().repeat_interleave(G, 0)
    ref = a.double() @ deq
    torch.testing.assert_close(c.double(), ref, rtol=1e-2, atol=1e-2 * ref.abs().max().item())


def test_errors_before_launch(examples):
    add = tilec.compile(f"{examples}/vector_add.tile", target="sm_80")
    x = torch.randn(64, device="cuda")
    with pytest.raises(tilec.Error, match="not dense row-major"):
        add(torch.randn(128, device="cuda")[::2], x, x)
    with pytest.raises(tilec.Error, match="expected a tensor of f32 but got f16"):
        add(x.half(), x, x)
