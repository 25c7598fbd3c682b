import dgl
import torch as th
import torch.distributed as dist


def dist_inference_one_layer(layer_id, g, dataloader, target_ntypes, layer, get_input_embeds, device):
    """Run one GNN layer over every node of the graph, one mini-batch at a time."""
    len_dataloader = max_num_batch = len(dataloader)
    count = th.tensor([len_dataloader], device=device)
    if dist.is_initialized():
        dist.all_reduce(count, op=dist.ReduceOp.MAX)
        max_num_batch = int(count[0])

    outputs = {}
    dataloader_iter = iter(dataloader)
    for step in range(max_num_batch):
        if step >= len_dataloader:
            continue
        input_nodes, output_nodes, blocks = next(dataloader_iter)
        h = get_input_embeds(input_nodes)
        h = layer(blocks[0].to(device), h)
        for ntype, emb in h.items():
            if ntype in output_nodes:
                outputs.setdefault(ntype, []).append(emb.cpu())
    return outputs


def dist_inference(g, encoder, get_input_embeds, batch_size, fanout):
    device = encoder.device
    with th.no_grad():
        result = None
        for i, layer in enumerate(encoder.layers):
            nodes = {ntype: th.arange(g.number_of_nodes(ntype)) for ntype in g.ntypes}
            sampler = dgl.dataloading.MultiLayerNeighborSampler([fanout[i]])
            dataloader = dgl.dataloading.DistNodeDataLoader(g, nodes, sampler, batch_size=batch_size, shuffle=False, drop_last=False)
            result = dist_inference_one_layer(str(i), g, dataloader, list(nodes), layer, get_input_embeds, device)
    return result
