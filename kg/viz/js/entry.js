// The renderer pieces the explorer uses, exposed as one global (KGVendor) for the inline app script.
export { default as Graph } from "graphology";
export { default as Sigma } from "sigma";
export { NodePointProgram, drawDiscNodeHover, drawDiscNodeLabel } from "sigma/rendering";
