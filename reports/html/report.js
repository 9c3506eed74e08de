// Each <section class="report"> (one per report on the page, its ids
// prefixed with data-prefix) has its own time axis, plots and data.
function openTarget(){const e=location.hash.length>1&&document.getElementById(decodeURIComponent(location.hash.slice(1)));
 const d=e&&e.closest('details');if(d)d.open=true}
window.addEventListener('hashchange',openTarget);openTarget();
for(const root of document.querySelectorAll('section.report'))(function(root){
const P=root.dataset.prefix||'';const byId=id=>document.getElementById(P+id);
const data=JSON.parse(byId('report-data').textContent);
const full=[data.start,data.end];let view=full.slice();
const charts=[...root.querySelectorAll('svg.chart')];
function nice(span,n){const r=span/n,p=Math.pow(10,Math.floor(Math.log10(r)));for(const m of [1,2,5,10])if(r<=m*p)return m*p;return 10*p}
function label(v,s){return s>=1?v.toFixed(0):v.toFixed(Math.ceil(-Math.log10(s)))}
function setView(a,b){view=[Math.max(full[0],a),Math.min(full[1],b)];if(view[1]-view[0]<1e-6)view[1]=view[0]+1e-6;
 for(const c of charts){const d=c.querySelector('svg.data');const vb=d.viewBox.baseVal;vb.x=view[0];vb.width=view[1]-view[0];
  const ax=c.querySelector('g.xaxis');const bottom=+ax.dataset.bottom;const W=960,L=62,R=12;const step=nice(view[1]-view[0],10);
  let h='';for(let t=Math.ceil(view[0]/step)*step;t<=view[1]+1e-12;t+=step){const x=L+(t-view[0])/(view[1]-view[0])*(W-L-R);
   h+=`<line x1="${x}" x2="${x}" y1="8" y2="${bottom}" class="grid"/><text x="${x}" y="${bottom+15}" class="tick" text-anchor="middle">${label(t,step)}</text>`}
  ax.innerHTML=h;drawBands(c)}
 byId('range').textContent=`${view[0].toFixed(3)} s to ${view[1].toFixed(3)} s`}
const NS='http://www.w3.org/2000/svg';
function bandSpans(b,t0,t1,n){const L=b.labels.length,w=(t1-t0)/n,sec=new Float64Array(n*L);
 for(const {start_s:s,end_s:e,label:l} of b.runs){const a=Math.max(s,t0),z=Math.min(e,t1);if(!(z>a))continue;
  const c0=Math.min(n-1,Math.floor((a-t0)/w)),c1=Math.min(n-1,Math.floor((z-t0)/w));
  for(let c=c0;c<=c1;c++){const o=Math.min(z,t0+(c+1)*w)-Math.max(a,t0+c*w);if(o>1e-9*w)sec[c*L+l]+=o}}
 const spans=[];for(let c=0;c<n&&L;c++){let d=0;for(let l=1;l<L;l++)if(sec[c*L+l]>sec[c*L+d])d=l;if(!(sec[c*L+d]>0))continue;
  const s=t0+c*w,e=c==n-1?t1:t0+(c+1)*w;let p=spans[spans.length-1];
  if(!p||p.d!==d||p.e<s-w/2){p={s:s,e:s,d:d,sh:new Array(L).fill(0)};spans.push(p)}
  for(let l=0;l<L;l++)p.sh[l]+=sec[c*L+l];p.e=e}
 for(const p of spans)p.sh=p.sh.map(x=>x/(p.e-p.s));return spans}
function spanTitle(b,p){const o=p.sh.map((x,l)=>[x,l]).filter(x=>x[0]>=0.005).sort((x,y)=>y[0]-x[0]);
 return `${p.s.toFixed(3)}–${p.e.toFixed(3)} s: `+o.map(x=>`${b.labels[x[1]]} ${(100*x[0]).toFixed(0)}%`).join(', ')}
function drawBands(c){const pd=data.plots[c.dataset.plot];if(!pd||!pd.bands)return;const b=pd.bands,d=c.querySelector('svg.data'),cur=d.querySelector('.cursor');
 for(const r of d.querySelectorAll('rect.band'))r.remove();pd.spans=bandSpans(b,view[0],view[1],data.band_columns);
 for(const p of pd.spans){const r=document.createElementNS(NS,'rect');r.setAttribute('class','band');r.setAttribute('x',p.s);r.setAttribute('width',p.e-p.s);
  r.setAttribute('y',-pd.ymax);r.setAttribute('height',pd.ymax);r.setAttribute('fill',b.colors[p.d]);r.setAttribute('fill-opacity',(0.3+0.7*p.sh[p.d]).toFixed(2));
  const t=document.createElementNS(NS,'title');t.textContent=spanTitle(b,p);r.appendChild(t);d.insertBefore(r,cur)}}
for(const id in data.plots){const pd=data.plots[id];if(pd.bands)pd.spans=bandSpans(pd.bands,full[0],full[1],data.band_columns)}
function tAt(c,ev){const d=c.querySelector('svg.data');const r=d.getBoundingClientRect();return view[0]+(ev.clientX-r.left)/r.width*(view[1]-view[0])}
function valueAt(s,t){const T=s.t;if(!T.length||t<T[0])return null;let lo=0,hi=T.length-1;while(lo<hi){const m=(lo+hi+1)>>1;if(T[m]<=t)lo=m;else hi=m-1}
 if(!s.step&&lo+1<T.length){const f=(t-T[lo])/(T[lo+1]-T[lo]);return s.y[lo]+f*(s.y[lo+1]-s.y[lo])}return s.y[lo]}
function fmt(v){if(v===null)return'';const a=Math.abs(v);return a>=1e4?v.toExponential(3):a>=100?v.toFixed(0):a>=1?v.toFixed(2):v.toPrecision(3)}
let drag=null;
for(const c of charts){const id=c.dataset.plot;const d=c.querySelector('svg.data');
 c.addEventListener('mousemove',ev=>{const t=tAt(c,ev);if(t<view[0]||t>view[1])return;
  for(const o of charts){const cur=o.querySelector('.cursor');const vb=o.querySelector('svg.data').viewBox.baseVal;
   cur.setAttribute('x1',t);cur.setAttribute('x2',t);cur.setAttribute('y1',vb.y);cur.setAttribute('y2',vb.y+vb.height);cur.style.visibility='visible';
   const pd=data.plots[o.dataset.plot];if(!pd)continue;const labels=document.querySelectorAll(`#${o.dataset.plot} .legend label`);
   pd.series.forEach((s,i)=>{const r=labels[i]&&labels[i].querySelector('.readout');if(r)r.textContent=fmt(valueAt(s,t))});
   if(pd.spans){const p=pd.spans.find(p=>p.s<=t&&t<=p.e);document.querySelectorAll(`#${o.dataset.plot} .bandkey .readout`).forEach((r,l)=>{r.textContent=p&&p.sh[l]>=0.005?`${(100*p.sh[l]).toFixed(0)}%`:''})}}
  byId('cursor-t').textContent=`t = ${t.toFixed(4)} s`});
 c.addEventListener('mousedown',ev=>{drag=tAt(c,ev)});
 c.addEventListener('mouseup',ev=>{if(drag===null)return;const t=tAt(c,ev);if(Math.abs(t-drag)>(view[1]-view[0])/200)setView(Math.min(t,drag),Math.max(t,drag));drag=null});
 c.addEventListener('dblclick',()=>setView(full[0],full[1]));}
for(const box of root.querySelectorAll('.legend input')){box.addEventListener('change',()=>{
 const p=document.querySelector(`svg[data-plot="${box.dataset.plot}"] path[data-series="${box.dataset.series}"]`);if(p)p.style.display=box.checked?'':'none'})}
function showRange(s,e){const det=root.closest('details');if(det)det.open=true;const pad=Math.max((e-s)*0.1,(full[1]-full[0])*0.005);
 setView(s-pad,e+pad);for(const r of root.querySelectorAll('rect.finding'))r.remove();
 for(const c of charts){const d=c.querySelector('svg.data');const vb=d.viewBox.baseVal;const r=document.createElementNS('http://www.w3.org/2000/svg','rect');
  r.setAttribute('class','finding');r.setAttribute('x',s);r.setAttribute('width',Math.max(e-s,1e-6));r.setAttribute('y',vb.y);r.setAttribute('height',vb.height);
  r.setAttribute('fill','#f2c94c');r.setAttribute('opacity','0.22');d.insertBefore(r,d.firstChild)}
 byId('plots').scrollIntoView()}
function fromHash(){const m=/^#(.*)range=([-0-9.e]+),([-0-9.e]+)$/.exec(location.hash);if(m&&m[1]===P)showRange(+m[2],+m[3])}
window.addEventListener('hashchange',fromHash);fromHash();
byId('reset').addEventListener('click',()=>{setView(full[0],full[1]);for(const r of root.querySelectorAll('rect.finding'))r.remove()});
root.querySelector('.controls').hidden=false;
})(root);
