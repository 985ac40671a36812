//! CUDA graphs recorded from a stream (stream capture): the launches a piece of host code issues,
//! replayed later with one call and none of the host's per-launch work.
//!
//! Capture runs in the driver's global mode: a call that is not allowed while a stream is being
//! recorded (an allocation, a synchronization, a synchronous copy) makes the capture fail, so a
//! recorded library call is one that allocates nothing and never waits.

use std::sync::Arc;

use cudarc::driver::{result, sys};

use crate::context::Context;
use crate::error::{cuda_err, invalid};
use crate::gpu::Stream;
use crate::Result;

/// An instantiated CUDA graph, destroyed when dropped.
///
/// # Example
/// ```no_run
/// let gpu = cute_rs_host::Gpu::new(0)?;
/// let stream = gpu.create_stream()?;
/// let graph = stream.capture(|_s| Ok(()))?; // the launches issued on `_s` are recorded
/// graph.launch(&stream)?;
/// stream.synchronize()?;
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct Graph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    ctx: Arc<Context>,
}

// SAFETY: the handles are only used with the context made current, as the other handles of a
// `Gpu` are.
unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph(device {})", self.ctx.ordinal)
    }
}

impl Stream {
    /// Records the work `f` issues on this stream into a CUDA graph instead of running it (CUDA's
    /// stream capture, global mode), and instantiates the graph.
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) on the CPU backend (it has no graphs);
    /// the error of `f`; [`HostError::Cuda`](crate::HostError::Cuda) when the driver refuses the
    /// capture, e.g. because `f` allocated or synchronized while recording.
    ///
    /// # Example
    /// See [`Graph`].
    pub fn capture(&self, f: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        let ctx = &self.inner.ctx;
        if ctx.cpu {
            invalid!("stream capture: the CPU backend runs launches at once and has no CUDA graphs");
        }
        ctx.bind()?;
        let stream = self.inner.stream;
        // SAFETY: the stream lives as long as `self`.
        unsafe { result::stream::begin_capture(stream, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }
            .map_err(|e| cuda_err("cuStreamBeginCapture", None, e))?;
        let recorded = f(self);
        // The capture always ends, so that the stream stays usable whatever `f` did.
        // SAFETY: as above; capturing since `begin_capture`.
        let ended = unsafe { result::stream::end_capture(stream) };
        recorded?;
        let graph = ended.map_err(|e| cuda_err("cuStreamEndCapture (a call not allowed while recording?)", None, e))?;
        // SAFETY: a graph just recorded.
        match unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) } {
            Ok(exec) => Ok(Graph { graph, exec, ctx: ctx.clone() }),
            Err(e) => {
                // SAFETY: created above, destroyed once.
                let _ = unsafe { result::graph::destroy(graph) };
                Err(cuda_err("cuGraphInstantiate", None, e))
            }
        }
    }
}

impl Graph {
    /// Replays the recorded work on `stream` (asynchronous, like a launch).
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) for a stream of another GPU;
    /// [`HostError::Cuda`](crate::HostError::Cuda) when the driver refuses the launch.
    ///
    /// # Example
    /// See [`Graph`].
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        if !Arc::ptr_eq(&self.ctx, &stream.inner.ctx) {
            invalid!("graph launch: the stream belongs to device {}, the graph to device {}", stream.inner.ctx.ordinal, self.ctx.ordinal);
        }
        self.ctx.bind()?;
        // SAFETY: both handles are alive and of this context.
        unsafe { result::graph::launch(self.exec, stream.inner.stream) }.map_err(|e| cuda_err("cuGraphLaunch", None, e))
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: created by `capture`, destroyed once.
            unsafe {
                let _ = result::graph::exec_destroy(self.exec);
                let _ = result::graph::destroy(self.graph);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Gpu, HostError};

    #[test]
    fn the_cpu_backend_refuses_capture_by_name() {
        let gpu = Gpu::cpu();
        let stream = gpu.create_stream().unwrap();
        match stream.capture(|_| Ok(())) {
            Err(HostError::Invalid(why)) => assert!(why.contains("CPU backend"), "{why}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
